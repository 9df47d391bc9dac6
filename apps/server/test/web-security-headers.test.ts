import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@agentwire-chat/websocket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { contentSecurityPolicyHeader } from "../src/content-security-policy.js";
import { type RunningServer, startServer } from "../src/start-server.js";

// Written out whole: a change to the policy must be a change to this test too.
const EXPECTED_CSP =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data: blob:;" +
  "connect-src 'self';font-src 'self';object-src 'none';base-uri 'none';form-action 'self';" +
  "frame-ancestors 'none'";

// The browser side (the built client works under this policy and cannot be framed) is
// apps/web/test/browser/server-security-headers.test.ts.
describe("security headers of the real server", () => {
  let dir: string;
  let server: RunningServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-headers-"));
    const web = join(dir, "web");
    mkdirSync(join(web, "assets"), { recursive: true });
    writeFileSync(join(web, "index.html"), '<!doctype html><div id="app"></div>');
    writeFileSync(join(web, "assets", "app.js"), "console.log(1);");
    // The server finds the client here.
    process.env.WEB_DIST_DIR = web;
    const config = loadConfig({ PORT: "0", DATABASE_PATH: join(dir, "agentwire.db") });
    server = await startServer(config, { logger: createLogger({ level: "silent" }) });
  });

  afterAll(async () => {
    delete process.env.WEB_DIST_DIR;
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("sends the strict policy and no-framing headers on the page, its assets, the API and errors", async () => {
    expect(contentSecurityPolicyHeader()).toBe(EXPECTED_CSP);
    const answers: Record<string, number> = {
      "/": 200,
      "/assets/app.js": 200,
      "/api/threads": 200,
      "/health": 200,
      "/metrics": 200,
      "/missing": 404,
    };
    for (const [path, status] of Object.entries(answers)) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(status);
      expect(res.headers.get("content-security-policy"), path).toBe(EXPECTED_CSP);
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(res.headers.get("cross-origin-resource-policy"), path).toBe("same-origin");
      // Plain HTTP: no HSTS (and the policy has no upgrade-insecure-requests, which would turn ws:// into wss://).
      expect(res.headers.get("strict-transport-security"), path).toBeNull();
    }
    expect(await (await fetch(`${server.url}/`)).text()).toContain('<div id="app">');
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { isOriginAllowed } from "../src/auth/is-origin-allowed.js";
import { startTestServer, type TestServer, upgradeStatus } from "./harness.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("isOriginAllowed", () => {
  it("lets a page served by the server itself through, and nothing that only looks alike", () => {
    expect(isOriginAllowed("http://127.0.0.1:8787", [], "127.0.0.1:8787")).toBe(true);
    expect(isOriginAllowed("http://127.0.0.1:8788", [], "127.0.0.1:8787")).toBe(false);
    expect(isOriginAllowed("http://127.0.0.1:8787.evil.com", [], "127.0.0.1:8787")).toBe(false);
    expect(isOriginAllowed("null", [], "127.0.0.1:8787")).toBe(false);
    expect(isOriginAllowed("file://127.0.0.1:8787", [], "127.0.0.1:8787")).toBe(false);
    expect(isOriginAllowed("https://app.example.com", ["https://app.example.com/"], "x")).toBe(true);
  });
});

describe("the origin check at upgrade", () => {
  it("accepts the server's own origin with an empty allowlist and refuses another", async () => {
    server = await startTestServer({ allowedOrigins: [] });
    const own = server.httpUrl;
    expect(await upgradeStatus(server.wsUrl, { origin: own })).toBe(101);
    expect(await upgradeStatus(server.wsUrl, { origin: "https://evil.example" })).toBe(403);
  });
});

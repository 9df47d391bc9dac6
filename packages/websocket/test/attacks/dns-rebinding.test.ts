import { countRows, startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { hostAllowlist, parseHost } from "../../src/auth/host-allowlist.js";
import { isOriginAllowed } from "../../src/auth/is-origin-allowed.js";
import { rawRequest, rawUpgrade } from "./raw-http.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const portOf = (s: TestServer) => new URL(s.httpUrl).port;

describe("DNS rebinding against AUTH_MODE=none", () => {
  it("refuses an upgrade whose Host and Origin are the attacker's name, before the handshake", async () => {
    server = await startTestServer({ auth: "none" });
    const evil = `rebind.evil.example:${portOf(server)}`;
    const attack = await rawUpgrade(server.httpUrl, "/ws", { host: evil, origin: `http://${evil}` });
    expect(attack.status).toBe(403);
    expect(JSON.parse(attack.body)).toMatchObject({ code: "forbidden" });
    // The same page without an Origin (not a browser) is refused too: the Host alone decides.
    expect((await rawUpgrade(server.httpUrl, "/ws", { host: evil })).status).toBe(403);
    expect(server.app.agentwireConnections.all()).toHaveLength(0);
  });

  it("refuses the HTTP API under a foreign Host and serves loopback names", async () => {
    server = await startTestServer({ auth: "none" });
    const port = portOf(server);
    const before = await countRows(server.storage, "threads");
    for (const host of [
      `rebind.evil.example:${port}`,
      "rebind.evil.example",
      `127.0.0.1.evil.example:${port}`,
    ]) {
      const res = await rawRequest(server.httpUrl, "/api/threads", { host });
      expect(res.status, host).toBe(403);
      expect(res.body).not.toContain("threads");
    }
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      "LOCALHOST",
      `localhost.:${port}`,
    ]) {
      expect((await rawRequest(server.httpUrl, "/api/threads", { host })).status, host).toBe(200);
    }
    // Malformed or missing Host names are refused, never parsed leniently.
    for (const host of [`evil@127.0.0.1:${port}`, "127.0.0.1/x", "a b"]) {
      expect((await rawRequest(server.httpUrl, "/api/threads", { host })).status, JSON.stringify(host)).toBe(
        403,
      );
    }
    expect(await countRows(server.storage, "threads")).toBe(before);
  });

  it("serves a configured name (ALLOWED_HOSTS), with or without a port pinned", async () => {
    server = await startTestServer({ auth: "none", allowedHosts: ["agent.example.com", `lan.example:${9}`] });
    const port = portOf(server);
    expect(
      (await rawRequest(server.httpUrl, "/api/threads", { host: `agent.example.com:${port}` })).status,
    ).toBe(200);
    expect((await rawRequest(server.httpUrl, "/api/threads", { host: `lan.example:${port}` })).status).toBe(
      403,
    );
    const page = `http://agent.example.com:${port}`;
    const upgrade = await rawUpgrade(server.httpUrl, "/ws", {
      host: `agent.example.com:${port}`,
      origin: page,
    });
    expect(upgrade.status).toBe(101);
  });

  it("keeps /health answering under any Host (probes)", async () => {
    server = await startTestServer({ auth: "none" });
    expect((await rawRequest(server.httpUrl, "/health", { host: "10.0.0.7:8787" })).status).toBe(200);
  });
});

describe("the same-origin exemption", () => {
  it("trusts a page's own origin only under a host the server answers to", () => {
    const allowed = hostAllowlist(["agent.example.com"]);
    expect(isOriginAllowed("http://127.0.0.1:8787", [], "127.0.0.1:8787", allowed)).toBe(true);
    expect(isOriginAllowed("https://agent.example.com", [], "agent.example.com", allowed)).toBe(true);
    // Origin equal to Host is what DNS rebinding produces: not enough.
    expect(isOriginAllowed("http://rebind.evil.example:8787", [], "rebind.evil.example:8787", allowed)).toBe(
      false,
    );
    expect(isOriginAllowed("http://127.0.0.1:8788", [], "127.0.0.1:8787", allowed)).toBe(false);
    expect(isOriginAllowed("http://127.0.0.1:8787.evil.com", [], "127.0.0.1:8787", allowed)).toBe(false);
    expect(isOriginAllowed("null", [], "127.0.0.1:8787", allowed)).toBe(false);
    expect(isOriginAllowed("https://app.example.com", ["https://app.example.com/"], "x", allowed)).toBe(true);
  });

  it("refuses a rebinding page in token mode too, where Host is otherwise not restricted", async () => {
    server = await startTestServer({ auth: "token" });
    const token = await server.createToken("alice");
    const evil = `rebind.evil.example:${portOf(server)}`;
    const headers = {
      host: evil,
      origin: `http://${evil}`,
      authorization: `Bearer ${token}`,
    };
    expect((await rawUpgrade(server.httpUrl, "/ws", headers)).status).toBe(403);
    // Tokens without ALLOWED_HOSTS: any name may reach the API, a token still decides.
    expect((await rawRequest(server.httpUrl, "/api/threads", { host: evil })).status).toBe(401);
  });

  it("parses Host headers strictly", () => {
    expect(parseHost("Agent.Example.com:443")).toEqual({ name: "agent.example.com", port: "443" });
    expect(parseHost("[::1]:80")).toEqual({ name: "[::1]", port: "80" });
    expect(parseHost("a b")).toBeUndefined();
    expect(parseHost("x:y")).toBeUndefined();
    expect(() => hostAllowlist(["http://x"])).toThrow(/ALLOWED_HOSTS/);
  });
});

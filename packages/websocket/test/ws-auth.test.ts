import { startTestServer, type TestServer, upgradeStatus } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { createUserResolver } from "../src/auth/resolve-user.js";
import { hashApiToken } from "../src/index.js";
import { rawUpgrade } from "./attacks/raw-http.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("auth before the upgrade", () => {
  for (const carrier of ["header", "subprotocol", "query"] as const) {
    it(`accepts a valid token as ${carrier} and refuses a wrong one with 401`, async () => {
      server = await startTestServer({ auth: "token" });
      const token = await server.createToken("alice");
      const client = await server.connect({ token, carrier });
      await client.ping();
      if (carrier === "subprotocol") expect(client.ws.protocol).toBe("agentwire.v1+nested");
      await client.close();
      expect(await upgradeStatus(server.wsUrl, { token: `${token}x`, carrier })).toBe(401);
    });
  }

  it("refuses with 400 an upgrade that offers only the bearer subprotocol (no agentwire.v1), before any 101", async () => {
    server = await startTestServer({ auth: "token" });
    const token = await server.createToken("alice");
    const refused = await rawUpgrade(server.httpUrl, "/ws", {
      "sec-websocket-protocol": `agentwire.bearer.${token}`,
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      code: "bad_request",
      message: "offer the subprotocol agentwire.v1 (or agentwire.v1+nested) beside any other",
    });
    expect(refused.body).not.toContain(token);
    const unknown = await rawUpgrade(server.httpUrl, "/ws", {
      "sec-websocket-protocol": "chat, superchat",
      authorization: `Bearer ${token}`,
    });
    expect(unknown.status).toBe(400);
    // With agentwire.v1 beside it, the same token is accepted.
    const accepted = await rawUpgrade(server.httpUrl, "/ws", {
      "sec-websocket-protocol": `agentwire.bearer.${token}, agentwire.v1`,
    });
    expect(accepted.status).toBe(101);
    // No subprotocol header at all (CLI with a header token): still accepted.
    expect(await rawUpgrade(server.httpUrl, "/ws", { authorization: `Bearer ${token}` })).toMatchObject({
      status: 101,
    });
  });

  it("refuses a connection with no token with 401", async () => {
    server = await startTestServer({ auth: "token" });
    expect(await upgradeStatus(server.wsUrl)).toBe(401);
  });

  it("accepts a static AUTH_TOKENS entry and refuses a revoked token", async () => {
    server = await startTestServer({
      auth: { mode: "token", staticTokens: [{ userId: "bob", tokenHash: hashApiToken("static-secret") }] },
    });
    expect(await upgradeStatus(server.wsUrl, { token: "static-secret" })).toBe(101);
    const token = await server.createToken("carol");
    const [row] = await server.repos.apiTokens.list("carol");
    expect(await server.repos.apiTokens.revoke(row!.id)).toBe(true);
    expect(await upgradeStatus(server.wsUrl, { token })).toBe(401);
  });

  it("resolves each of many static tokens to its own user, the first of a duplicate, and an unknown one to nobody", async () => {
    server = await startTestServer({ auth: "token" });
    const staticTokens = Array.from({ length: 1000 }, (_, i) => ({
      userId: `user-${i}`,
      tokenHash: hashApiToken(`static-${i}`),
    }));
    staticTokens.push({ userId: "second-holder", tokenHash: hashApiToken("static-7") });
    const resolve = createUserResolver({ mode: "token", staticTokens }, server.repos.apiTokens);
    for (const i of [0, 7, 499, 999]) expect(await resolve(`static-${i}`)).toBe(`user-${i}`);
    expect(await resolve("static-1000")).toBeUndefined();
    // The table's tokens still resolve after the static ones.
    const token = await server.createToken("dave");
    expect(await resolve(token)).toBe("dave");
  });

  it("treats every connection as user local when AUTH_MODE=none", async () => {
    server = await startTestServer({ auth: "none" });
    const client = await server.connect();
    await client.ping();
    const [connection] = server.app.agentwireConnections.all();
    expect(connection?.userId).toBe("local");
    await client.close();
  });

  it("refuses a browser Origin not on the allowlist with 403 and accepts a listed one", async () => {
    server = await startTestServer({ auth: "none", allowedOrigins: ["https://app.example.com"] });
    expect(await upgradeStatus(server.wsUrl, { origin: "https://evil.example.com" })).toBe(403);
    expect(await upgradeStatus(server.wsUrl, { origin: "https://app.example.com" })).toBe(101);
    // No Origin header: not a browser page, so the allowlist does not apply.
    expect(await upgradeStatus(server.wsUrl)).toBe(101);
  });

  it("refuses connections past the per-user cap with 429", async () => {
    server = await startTestServer({ auth: "token", limits: { maxConnectionsPerUser: 2 } });
    const token = await server.createToken("alice");
    const a = await server.connect({ token });
    const b = await server.connect({ token });
    expect(await upgradeStatus(server.wsUrl, { token })).toBe(429);
    const other = await server.createToken("bob");
    expect(await upgradeStatus(server.wsUrl, { token: other })).toBe(101);
    await a.close();
    await b.ping();
  });
});

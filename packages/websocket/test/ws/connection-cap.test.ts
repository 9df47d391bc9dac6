import {
  startTestServer,
  type TestClient,
  type TestServer,
  upgradeStatus,
} from "@agentwire-chat/testkit/harness";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Connects once the cap has room again (a closed socket's slot is given back by the server's close handler). */
function connectWhenFree(s: TestServer, token: string): Promise<TestClient> {
  const attempt = () =>
    s.connect({ token }).catch((error: unknown) => {
      if (!String(error).includes("429")) throw error;
      return undefined;
    });
  return until(attempt, "a free connection slot", { timeoutMs: 5_000 });
}

describe("the per-user connection cap (one process)", () => {
  it("a closed socket gives its slot back; the cap then holds again", async () => {
    server = await startTestServer({ auth: "token", limits: { maxConnectionsPerUser: 2 } });
    const token = await server.createToken("alice");
    const a = await server.connect({ token });
    const b = await server.connect({ token });
    expect(await upgradeStatus(server.wsUrl, { token })).toBe(429);
    await a.close();
    const c = await connectWhenFree(server, token);
    expect(await upgradeStatus(server.wsUrl, { token })).toBe(429);
    await b.ping();
    await c.ping();
  });

  it("a plain GET /ws (no upgrade) on a kept-alive HTTP connection takes no slot", async () => {
    server = await startTestServer({ auth: "token", limits: { maxConnectionsPerUser: 1 } });
    const token = await server.createToken("alice");
    for (let i = 0; i < 3; i++) {
      const response = await server.fetch("/ws", { token });
      expect(response.status).toBe(404);
      await response.arrayBuffer();
    }
    const client = await server.connect({ token });
    await client.ping();
  });
});

import { startTestServer } from "@agentwire-chat/testkit/harness";
import { describe, expect, it } from "vitest";

describe("graceful shutdown", () => {
  it("closes every client with 1012, then refuses new upgrades", async () => {
    const server = await startTestServer();
    const a = await server.connect();
    const b = await server.connect();
    await a.ping();
    const closing = server.close();
    expect((await a.waitForClose()).code).toBe(1012);
    expect((await b.waitForClose()).code).toBe(1012);
    await closing;
    await expect(server.connect()).rejects.toThrow();
  });

  it("terminates a client that does not complete the close handshake in time", async () => {
    const server = await startTestServer({ limits: { closeTimeoutMs: 100 } });
    const stuck = await server.connect();
    // A client that never reads can never answer the close frame.
    stuck.ws.pause();
    await server.close();
    stuck.ws.resume();
    expect([1006, 1012]).toContain((await stuck.waitForClose()).code);
  });
});

import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("connection limits", () => {
  it("closes a frame over 1 MiB with 1009 and keeps serving other clients", async () => {
    server = await startTestServer();
    const big = await server.connect();
    const other = await server.connect();
    big.send("x".repeat(1024 * 1024 + 1));
    expect((await big.waitForClose()).code).toBe(1009);
    await other.ping();
    const fresh = await server.connect();
    await fresh.ping();
  });

  it("accepts a frame of exactly the limit", async () => {
    server = await startTestServer({ limits: { maxPayloadBytes: 1024 } });
    const client = await server.connect();
    const frame = (content: string) =>
      JSON.stringify({ command: "chat_message", data: { content }, request_id: "x" });
    client.send(frame("c".repeat(1024 - frame("").length)));
    expect((await client.next("error")).request_id).toBe("x");
    client.send(frame("c".repeat(1025 - frame("").length)));
    expect((await client.waitForClose()).code).toBe(1009);
  });

  it("answers rate_limited past the burst, then closes with 1008 if it goes on", async () => {
    server = await startTestServer({
      limits: { messagesPerSecond: 1, messageBurst: 3, rateLimitStrikes: 4 },
    });
    const client = await server.connect();
    for (let i = 0; i < 20; i++) client.command("ping", {}, `p${i}`);
    for (let i = 0; i < 3; i++) expect((await client.next("pong")).request_id).toBe(`p${i}`);
    expect((await client.next("error")).code).toBe("rate_limited");
    expect((await client.waitForClose()).code).toBe(1008);
    const errors = client.received.filter((f) => f.type === "error");
    expect(errors).toHaveLength(4);
  });

  it("terminates a socket that misses a heartbeat pong", async () => {
    server = await startTestServer({ limits: { heartbeatIntervalMs: 50 } });
    const silent = await server.connect({ wsOptions: { autoPong: false } });
    const lively = await server.connect();
    expect((await silent.waitForClose()).code).toBe(1006);
    await lively.ping();
    expect(lively.ws.readyState).toBe(WebSocket.OPEN);
  });

  it("negotiates no per-message-deflate", async () => {
    server = await startTestServer();
    const client = await server.connect({ wsOptions: { perMessageDeflate: true } });
    expect(client.ws.extensions).toBe("");
  });
});

describe("harness", () => {
  it("collects frames in order up to a match", async () => {
    server = await startTestServer();
    const client = await server.connect();
    for (const id of ["a", "b", "c"]) client.command("ping", {}, id);
    const frames = await client.collectUntil((f) => f.type === "pong" && f.request_id === "b");
    expect(frames.map((f) => (f.type === "pong" ? f.request_id : f.type))).toEqual(["a", "b"]);
    expect((await client.next("pong")).request_id).toBe("c");
  });
});

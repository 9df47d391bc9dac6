import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a flooding socket", () => {
  it("is logged once when it is condemned, and its later frames are dropped unanswered", async () => {
    server = await startTestServer({
      limits: { messagesPerSecond: 1, messageBurst: 3, rateLimitStrikes: 4 },
    });
    const client = await server.connect();
    // One write of 500 frames: they all arrive before the close can reach the client.
    const burst = Array.from({ length: 500 }, (_, i) =>
      JSON.stringify({ command: "ping", data: {}, request_id: `p${i}` }),
    );
    for (const frame of burst) client.send(frame);
    expect((await client.waitForClose()).code).toBe(1008);
    const closing = server.logs.filter((line) => line.includes("rate limit exceeded repeatedly"));
    expect(closing).toHaveLength(1);
    // 3 pongs within the burst, 4 rate_limited warnings, then nothing: no answer per dropped frame.
    expect(client.received.filter((f) => f.type === "pong")).toHaveLength(3);
    expect(client.received.filter((f) => f.type === "error")).toHaveLength(4);
    const other = await server.connect();
    await other.ping();
  });
});

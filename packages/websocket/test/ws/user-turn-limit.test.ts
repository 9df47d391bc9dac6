import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the per-user turn limit (one process)", () => {
  it("counts a user's chat_message over all their sockets: rate_limited, nothing started, then 1008", async () => {
    server = await startChatServer(() => ({ text: "ok" }), {
      auth: "token",
      // Refill of one turn a minute: nothing refills while the test runs.
      serverLimits: { userTurnsPerMinute: 1, userTurnBurst: 2, rateLimitStrikes: 2 },
    });
    const token = await server.createToken("alice");
    const first = await server.connect({ token });
    const second = await server.connect({ token });
    first.command("chat_message", { content: "one" });
    await first.collectUntil(isDone);
    second.command("chat_message", { content: "two" });
    await second.collectUntil(isDone);
    const threadsBefore = await server.countRows("threads");

    first.command("chat_message", { content: "three" }, "r3");
    expect(await first.next("error")).toMatchObject({ code: "rate_limited", request_id: "r3" });
    second.command("chat_message", { content: "three again" }, "r4");
    expect(await second.next("error")).toMatchObject({ code: "rate_limited", request_id: "r4" });
    expect(await server.countRows("threads")).toBe(threadsBefore);
    // Other commands are not counted, and another user has a budget of their own.
    await first.ping();
    const bob = await server.connect({ token: await server.createToken("bob") });
    bob.command("chat_message", { content: "hi" });
    await bob.collectUntil(isDone);

    // More refusals in a row than rateLimitStrikes close the socket, as the frame limit does.
    first.command("chat_message", { content: "four" }, "r5");
    expect(await first.next("error")).toMatchObject({ code: "rate_limited", request_id: "r5" });
    first.command("chat_message", { content: "five" });
    expect((await first.waitForClose()).code).toBe(1008);
  });

  it("is off unless userTurnsPerMinute is set", async () => {
    server = await startChatServer(() => ({ text: "ok" }));
    const client = await server.connect();
    for (let i = 0; i < 5; i++) {
      client.command("chat_message", { content: `turn ${i}` });
      await client.collectUntil(isDone);
    }
    expect(client.received.some((f) => f.type === "error")).toBe(false);
  });
});

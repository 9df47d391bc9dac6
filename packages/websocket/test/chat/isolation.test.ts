import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { finalRow, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

describe("one user's thread is invisible to another", () => {
  it("B cannot resume, stop, answer or continue A's thread, nor read it over HTTP, and never sees A's frames", async () => {
    const held = gate();
    server = await startChatServer(
      [
        {
          text: "Let me ask.",
          toolCalls: [{ id: "ask_a", name: "ask_user", args: { question: "Secret?" } }],
        },
        { gate: held.promise, text: "A's private answer" },
      ],
      { auth: "token" },
    );
    const tokenA = await server.createToken("alice");
    const tokenB = await server.createToken("bob");
    const a = await server.connect({ token: tokenA });
    const b = await server.connect({ token: tokenB });

    a.command("chat_message", { content: "alice's question" });
    const head = await a.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const threadId = threadOf(head);

    // While A's turn waits on A.
    const attempts: [string, object][] = [
      ["resume_chat", { thread_id: threadId, last_seq: 0 }],
      ["stop", { thread_id: threadId }],
      ["answer", { thread_id: threadId, tool_call_id: "ask_a", answer: "bob's answer" }],
      ["chat_message", { thread_id: threadId, content: "bob writes" }],
    ];
    for (const [command, data] of attempts) {
      b.command(command, data, command);
      expect(await b.next("error", { where: (e) => e.request_id === command }), command).toMatchObject({
        code: "not_found",
      });
    }
    // Exactly the answer a missing thread gets.
    b.command("resume_chat", { thread_id: "no-such-thread", last_seq: 0 }, "missing");
    const missing = await b.next("error", { where: (e) => e.request_id === "missing" });
    const denied = b.received.find(
      (f): f is Frame<"error"> => f.type === "error" && f.request_id === "resume_chat",
    );
    expect(denied?.message).toBe(missing.message);
    expect((await server.fetch(`/api/threads/${threadId}/messages`, { token: tokenB })).status).toBe(404);
    expect((await server.fetch(`/api/threads/${threadId}/messages`, { token: tokenA })).status).toBe(200);
    expect((await server.repos.turns.latest("alice", threadId))?.status).toBe("waiting_user");

    // A's turn goes on; B, who tried to resume it, receives none of its frames.
    a.command("answer", { thread_id: threadId, tool_call_id: "ask_a", answer: "alice's answer" });
    await a.next("agent_state", { where: (f) => f.state === "thinking" });
    b.command("resume_chat", { thread_id: threadId, last_seq: 0 }, "while-running");
    expect(await b.next("error", { where: (e) => e.request_id === "while-running" })).toMatchObject({
      code: "not_found",
    });
    b.command("stop", { thread_id: threadId }, "stop-running");
    expect(await b.next("error", { where: (e) => e.request_id === "stop-running" })).toMatchObject({
      code: "not_found",
    });
    held.open();
    const rest = await a.collectUntil(isDone);
    expectWellFormedTurn(a.received);
    expect(finalRow(rest)).toMatchObject({ content: "A's private answer", status: "complete" });
    await b.ping();
    expect(b.received.every((f) => f.type === "error" || f.type === "pong")).toBe(true);
    expect(JSON.stringify(b.received)).not.toContain("private");
    expect(JSON.stringify(server.provider.requests)).not.toContain("bob");
    // B's own thread list is empty.
    const list = (await (await server.fetch("/api/threads", { token: tokenB })).json()) as {
      threads: unknown[];
    };
    expect(list.threads).toEqual([]);
  });
});

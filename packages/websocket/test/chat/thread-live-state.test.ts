import type { ThreadSummary } from "@agentwire-chat/protocol";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function threads(s: ChatTestServer): Promise<ThreadSummary[]> {
  const res = await fetch(`${s.httpUrl}/api/threads`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { threads: ThreadSummary[] }).threads;
}

describe("GET /api/threads carries each thread's live state", () => {
  it("running while a turn streams, waiting_on_user with the question, idle once done", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    server = await startChatServer((request) => {
      const first = request.messages[0];
      const text = first?.role === "user" && typeof first.content === "string" ? first.content : "";
      if (text === "ask me") {
        return request.messages.some((m) => m.role === "tool")
          ? { text: "thanks" }
          : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] };
      }
      return { text: "working", hold: held };
    });
    const client = await server.connect();

    client.command("chat_message", { content: "long job" });
    const running = await client.next("thread");
    await client.next("chunk", { where: (c) => c.content === "working" });
    client.command("chat_message", { content: "ask me" });
    const asking = await client.next("thread");
    await client.next("question");

    const byId = new Map((await threads(server)).map((t) => [t.id, t]));
    expect(byId.get(running.thread_id as string)).toMatchObject({ state: "running" });
    expect(byId.get(asking.thread_id as string)).toMatchObject({
      state: "waiting_on_user",
      question: "Which color?",
    });
    expect(byId.get(running.thread_id as string)?.question).toBeUndefined();

    release();
    client.command("answer", { thread_id: asking.thread_id, tool_call_id: "ask_1", answer: "blue" });
    // Both turns end, in either order.
    const ended = new Set<string>();
    await client.collectUntil((f) => {
      if (isDone(f)) ended.add((f as { thread_id: string }).thread_id);
      return ended.size === 2;
    });
    const after = await threads(server);
    expect(after.map((t) => t.state)).toEqual(["idle", "idle"]);
  });
});

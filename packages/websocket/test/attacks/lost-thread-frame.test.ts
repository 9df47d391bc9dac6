import type { ServerFrame, ThreadSummary } from "@agentwire-chat/protocol";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function threadsFor(s: ChatTestServer, requestId: string, token?: string): Promise<ThreadSummary[]> {
  const res = await fetch(`${s.httpUrl}/api/threads?request_id=${encodeURIComponent(requestId)}`, {
    ...(token && { headers: { authorization: `Bearer ${token}` } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { threads: ThreadSummary[] }).threads;
}

describe("a client that loses its thread frame", () => {
  it("gets request_id echoed on the turn's thread frame and user message", async () => {
    server = await startChatServer([{ text: "hello" }, { text: "again" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi" }, "req-first");
    const frames = await client.collectUntil(isDone);
    const thread = frames.find((f) => f.type === "thread");
    expect(thread).toMatchObject({ type: "thread", request_id: "req-first" });
    const user = frames.find((f) => f.type === "message" && f.message.role === "user");
    expect(user).toMatchObject({ request_id: "req-first" });
    // Only the first frames: the assistant's stored row does not repeat it.
    const assistant = frames.find((f) => f.type === "message" && f.message.role === "assistant");
    expect(assistant && "request_id" in assistant).toBe(false);
    // A message on an existing thread has no thread frame; its user message still carries the id.
    const threadId = thread?.thread_id as string;
    client.command("chat_message", { content: "more", thread_id: threadId }, "req-second");
    const next = await client.collectUntil(isDone);
    expect(next.some((f) => f.type === "thread")).toBe(false);
    expect(next.find((f) => f.type === "message" && f.message.role === "user")).toMatchObject({
      request_id: "req-second",
    });
  });

  it("finds it after a reconnect with GET /api/threads?request_id=, then resumes it", async () => {
    let called!: () => void;
    const providerCalled = new Promise<void>((resolve) => {
      called = resolve;
    });
    server = await startChatServer(() => {
      called();
      return { text: ["lost ", "and found"] };
    });
    const first = await server.connect();
    first.command("chat_message", { content: "hello" }, "req-lost");
    // The socket dies with the frames unread (terminated once the server has the message: a
    // terminate racing the send could drop the message itself).
    await providerCalled;
    first.ws.terminate();
    await first.waitForClose();

    const [found, ...more] = await threadsFor(server, "req-lost");
    expect(more).toEqual([]);
    expect(found?.title).toBe("hello");
    expect(await threadsFor(server, "never-sent")).toEqual([]);

    const second = await server.connect();
    second.command("resume_chat", { thread_id: found?.id, last_seq: 0 });
    const replay: ServerFrame[] = await second.collectUntil(isDone);
    expect(replay[0]).toMatchObject({ type: "thread", request_id: "req-lost", thread_id: found?.id });
    expect(
      replay
        .filter((f) => f.type === "chunk" && !f.done)
        .map((f) => (f as { content: string }).content)
        .join(""),
    ).toBe("lost and found");
  });

  it("never finds another user's thread by its request_id", async () => {
    server = await startChatServer([{ text: "secret" }], { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "mine" }, "shared-id");
    await client.collectUntil(isDone);
    expect(await threadsFor(server, "shared-id", alice)).toHaveLength(1);
    expect(await threadsFor(server, "shared-id", bob)).toEqual([]);
  });

  it("takes control characters in ids the way both databases can (no NUL reaches a query)", async () => {
    server = await startChatServer([{ text: "ok" }]);
    const client = await server.connect();
    // A request_id is echoed as sent, but only a printable one is stored to be looked up.
    client.command("chat_message", { content: "x" }, "nul\u0000id");
    const frames = await client.collectUntil(isDone);
    expect(frames.find((f) => f.type === "thread")).toMatchObject({ request_id: "nul\u0000id" });
    expect(await threadsFor(server, "nul\u0000id")).toEqual([]);
    // An id with a control character is no id: bad_request, not a database error.
    client.command("stop", { thread_id: "\u0000" }, "stop-nul");
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "stop-nul" });
    expect(error.message).toContain("data.thread_id");
  });
});

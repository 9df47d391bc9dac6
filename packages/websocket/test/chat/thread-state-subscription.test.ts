import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const states = (c: TestClient) =>
  c.received.filter((f): f is Frame<"thread_state"> => f.type === "thread_state");

const firstText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};

/** "ask me" asks a question and thanks for the answer; "hold" streams until `held` opens; else a quick answer. */
function script(held: Promise<void>) {
  return (request: ProviderRequest): ScriptedStep => {
    if (firstText(request) === "ask me")
      return request.messages.some((m) => m.role === "tool")
        ? { text: "thanks" }
        : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] };
    if (firstText(request) === "hold") return { text: "working", hold: held };
    return { text: "quick" };
  };
}

describe("subscribe_threads / thread_state", () => {
  it("a subscribed socket sees running → waiting_on_user → running → idle for a turn of another socket of its user; nobody else sees anything", async () => {
    server = await startChatServer(script(Promise.resolve()), { auth: "token" });
    const tokenA = await server.createToken("alice");
    const tokenB = await server.createToken("bob");
    const watcher = await server.connect({ token: tokenA });
    const other = await server.connect({ token: tokenB });
    const unsubscribed = await server.connect({ token: tokenA });
    const driver = await server.connect({ token: tokenA });
    for (const c of [watcher, other]) {
      c.command("subscribe_threads", {});
      // Success answers nothing: the next frame is the ping's pong.
      c.command("ping", {}, "after-subscribe");
      expect(await c.nextFrame()).toMatchObject({ type: "pong", request_id: "after-subscribe" });
    }

    driver.command("chat_message", { content: "ask me" });
    const thread = await driver.next("thread");
    const threadId = thread.thread_id as string;
    await driver.next("question");
    expect(await watcher.next("thread_state")).toEqual({
      type: "thread_state",
      thread_id: threadId,
      state: "running",
    });
    expect(await watcher.next("thread_state")).toEqual({
      type: "thread_state",
      thread_id: threadId,
      state: "waiting_on_user",
      question: "Which color?",
    });
    driver.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" });
    expect(await watcher.next("thread_state")).toMatchObject({ thread_id: threadId, state: "running" });
    await driver.collectUntil(isDone);
    expect(await watcher.next("thread_state")).toMatchObject({ thread_id: threadId, state: "idle" });
    expect(states(watcher).map((f) => f.state)).toEqual(["running", "waiting_on_user", "running", "idle"]);

    // Anything sent to them would have arrived before the pong.
    await other.ping();
    await unsubscribed.ping();
    expect(states(other)).toEqual([]);
    expect(states(unsubscribed)).toEqual([]);
    // The watcher was only told; it never received the turn's own frames.
    expect(watcher.received.some((f) => f.type === "chunk")).toBe(false);
  });

  it("on subscribe, a client coming back gets each thread that is not idle: running, and waiting with its question", async () => {
    const held = gate();
    server = await startChatServer(script(held.promise));
    const first = await server.connect();
    first.command("chat_message", { content: "hold" });
    const running = (await first.next("thread")).thread_id as string;
    await first.next("chunk", { where: (c) => c.content === "working" });
    first.command("chat_message", { content: "ask me" });
    const asking = (await first.next("thread")).thread_id as string;
    await first.next("question");
    first.command("chat_message", { content: "done quickly" });
    const quick = (await first.next("thread")).thread_id as string;
    await first.collectUntil((f) => isDone(f) && (f as { thread_id?: string }).thread_id === quick);
    await first.close();

    const back = await server.connect();
    back.command("subscribe_threads", {});
    await back.ping();
    const byThread = new Map(states(back).map((f) => [f.thread_id, f]));
    expect(byThread.size).toBe(2);
    expect(byThread.has(quick)).toBe(false);
    expect(byThread.get(running)).toEqual({ type: "thread_state", thread_id: running, state: "running" });
    expect(byThread.get(asking)).toEqual({
      type: "thread_state",
      thread_id: asking,
      state: "waiting_on_user",
      question: "Which color?",
    });
    held.open();
    await back.next("thread_state", { where: (f) => f.thread_id === running && f.state === "idle" });
  });

  it("a closed socket is unsubscribed", async () => {
    server = await startChatServer([{ text: "hi" }]);
    const watcher = await server.connect();
    watcher.command("subscribe_threads", {});
    await watcher.ping();
    expect(server.chat.threadStates.size).toBe(1);
    await watcher.close();
    const driver = await server.connect();
    driver.command("chat_message", { content: "hello" });
    await driver.collectUntil(isDone);
    expect(server.chat.threadStates.size).toBe(0);
  });
});

/**
 * Issue 38, messages sent while a turn runs (on_busy queue), through the real socket: message_queued,
 * GET queue, the queued turn starting when the running one ends (complete, stopped, after a question),
 * cancel_queued, QUEUE_MAX_PER_THREAD, and the BUSY_POLICY default.
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame, ThreadSummary } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import {
  errorFor,
  expectChained,
  type Frame,
  finalOf,
  lastUser,
  queueOf,
  rows,
  seen,
  shape,
  threadOf,
} from "./conversation-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers `re:<last user text>`; a user text in `held` waits for its gate first. */
function answering(held: Record<string, Promise<void>> = {}) {
  return (request: ProviderRequest): ScriptedStep => {
    const text = lastUser(request);
    return { text: `re:${text}`, ...(held[text] && { gate: held[text] }) };
  };
}

/** Starts `content` as a new thread's turn and waits until it runs; its thread id. */
async function startHeld(client: TestClient, content: string): Promise<string> {
  client.command("chat_message", { content });
  const thread = await client.next("thread");
  await client.next("turn_started");
  return thread.thread_id as string;
}

/** Queues `content` on the thread; the message_queued answer. */
async function enqueue(
  client: TestClient,
  threadId: string,
  content: string,
  requestId: string,
  onBusy: "queue" | "steer" | "interrupt" = "queue",
): Promise<Frame<"message_queued">> {
  client.command("chat_message", { content, thread_id: threadId, on_busy: onBusy }, requestId);
  return client.next("message_queued", { where: (f) => f.request_id === requestId });
}

const turnStarts = (frames: ServerFrame[]) =>
  frames.filter((f): f is Frame<"turn_started"> => f.type === "turn_started");

describe("queue", () => {
  it("answers message_queued with positions, lists the queue, and runs each queued message as the next turn with its id; watchers follow without resume_chat", async () => {
    const held = gate();
    server = await startChatServer(answering({ first: held.promise }));
    const client = await server.connect();
    const threadId = await startHeld(client, "first");
    // A second socket that watches the running turn.
    const watcher = await server.connect();
    watcher.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    await watcher.next("chat_resumed");

    const second = await enqueue(client, threadId, "second", "r2");
    expect(second).toMatchObject({ thread_id: threadId, mode: "queue", position: 1, request_id: "r2" });
    expect(second).not.toHaveProperty("seq");
    const third = await enqueue(client, threadId, "third", "r3");
    expect(third).toMatchObject({ mode: "queue", position: 2 });

    const queued = await queueOf(server, threadId);
    expect(queued.map((q) => [q.message_id, q.content, q.mode, q.position, q.thread_id])).toEqual([
      [second.message_id, "second", "queue", 1, threadId],
      [third.message_id, "third", "queue", 2, threadId],
    ]);
    const list = (await (await server.fetch("/api/threads")).json()) as { threads: ThreadSummary[] };
    expect(list.threads.find((t) => t.id === threadId)?.queued).toBe(2);
    // Queued rows are not on a branch, and the model has not been asked about them: only the held
    // turn's one call (waited for, as it may start after turn_started on a loaded machine).
    expect(shape(await rows(server, threadId))).toEqual(["user:first"]);
    await until(() => server?.provider.calls === 1 || undefined, "the held turn's model call");
    expect(server.provider.calls).toBe(1);

    held.open();
    const firstTurn = await client.collectUntil(isDone);
    expect(finalOf(firstTurn)).toMatchObject({ content: "re:first", status: "complete" });
    const secondTurn = await client.collectUntil(isDone);
    const thirdTurn = await client.collectUntil(isDone);
    for (const [frames, q, content] of [
      [secondTurn, second, "second"],
      [thirdTurn, third, "third"],
    ] as const) {
      const user = frames.find(
        (f): f is Frame<"message"> => f.type === "message" && f.message.role === "user",
      );
      expect(user?.message).toMatchObject({ id: q.message_id, content, role: "user" });
      expect(turnStarts(frames).map((f) => f.user_message_id)).toEqual([q.message_id]);
      expect(finalOf(frames)).toMatchObject({ content: `re:${content}`, status: "complete" });
    }
    // Each queued turn followed the leaf the previous one left.
    expect(seen(server.provider.requests[1])).toEqual(["user:first", "assistant:re:first", "user:second"]);
    expect(seen(server.provider.requests[2])).toEqual([
      "user:first",
      "assistant:re:first",
      "user:second",
      "assistant:re:second",
      "user:third",
    ]);
    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual([
      "user:first",
      "assistant:re:first",
      "user:second",
      "assistant:re:second",
      "user:third",
      "assistant:re:third",
    ]);
    expectChained(messages);
    expect(await queueOf(server, threadId)).toEqual([]);

    // The watcher saw both queued turns start and end, never asked again; it was not sent message_queued.
    await until(() => watcher.received.filter(isDone).length === 3 || undefined, "the watcher's three dones");
    // (its resume_chat from seq 0 replayed the first turn's turn_started too)
    expect(turnStarts(watcher.received).map((f) => f.user_message_id)).toEqual([
      messages[0]?.id,
      second.message_id,
      third.message_id,
    ]);
    expect(watcher.received.some((f) => f.type === "message_queued")).toBe(false);
    const list2 = (await (await server.fetch("/api/threads")).json()) as { threads: ThreadSummary[] };
    expect(list2.threads.find((t) => t.id === threadId)?.queued).toBeUndefined();
  });

  it("starts the queued message after a turn that was stopped, following its stopped answer", async () => {
    server = await startChatServer((request) =>
      lastUser(request) === "long"
        ? { text: ["part ", "one"], hold: "until-aborted" }
        : { text: `re:${lastUser(request)}` },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "long" });
    const head = await client.collectUntil((f) => f.type === "chunk" && f.content === "one");
    const threadId = threadOf(head);
    const q = await enqueue(client, threadId, "after stop", "r1");
    client.command("stop", { thread_id: threadId });
    const stopped = await client.collectUntil(isDone);
    const partial = finalOf(stopped);
    expect(partial).toMatchObject({ content: "part one", status: "stopped" });
    const next = await client.collectUntil(isDone);
    expect(turnStarts(next).map((f) => f.user_message_id)).toEqual([q.message_id]);
    const user = next.find((f): f is Frame<"message"> => f.type === "message" && f.message.role === "user");
    expect(user?.message).toMatchObject({
      id: q.message_id,
      content: "after stop",
      parent_message_id: partial.id,
    });
    expect(finalOf(next)).toMatchObject({ content: "re:after stop", status: "complete" });
    expect(lastUser(server.provider.requests[1]!)).toBe("after stop");
    expect(shape(await rows(server, threadId))).toEqual([
      "user:long",
      "assistant:part one",
      "user:after stop",
      "assistant:re:after stop",
    ]);
  });

  it("cancel_queued removes a queued message, which never runs; unknown or already started is not_found", async () => {
    const held = gate();
    const heldB = gate();
    server = await startChatServer(answering({ first: held.promise, keep: heldB.promise }));
    const client = await server.connect();
    const threadId = await startHeld(client, "first");
    const drop = await enqueue(client, threadId, "drop me", "r1");
    const keep = await enqueue(client, threadId, "keep", "r2");
    expect(keep.position).toBe(2);

    client.command("cancel_queued", { thread_id: threadId, message_id: drop.message_id }, "c1");
    expect(await client.next("queued_message_cancelled")).toEqual({
      type: "queued_message_cancelled",
      thread_id: threadId,
      message_id: drop.message_id,
      request_id: "c1",
    });
    expect((await queueOf(server, threadId)).map((q) => [q.message_id, q.position])).toEqual([
      [keep.message_id, 1],
    ]);
    client.command("cancel_queued", { thread_id: threadId, message_id: drop.message_id }, "c2");
    expect(await errorFor(client, "c2")).toMatchObject({ code: "not_found" });
    client.command("cancel_queued", { thread_id: threadId, message_id: "no-such-message" }, "c3");
    expect(await errorFor(client, "c3")).toMatchObject({ code: "not_found" });

    held.open();
    await client.collectUntil(isDone);
    // "keep" runs (held); cancelling it now that it started is not_found and does not stop it.
    const started = await client.next("turn_started");
    expect(started.user_message_id).toBe(keep.message_id);
    client.command("cancel_queued", { thread_id: threadId, message_id: keep.message_id }, "c4");
    expect(await errorFor(client, "c4")).toMatchObject({ code: "not_found" });
    heldB.open();
    const last = await client.collectUntil(isDone);
    expect(finalOf(last)).toMatchObject({ content: "re:keep", status: "complete" });

    expect(shape(await rows(server, threadId))).toEqual([
      "user:first",
      "assistant:re:first",
      "user:keep",
      "assistant:re:keep",
    ]);
    expect(server.provider.requests.map(lastUser)).toEqual(["first", "keep"]);
    expect(await queueOf(server, threadId)).toEqual([]);
    expect(client.received.filter((f) => f.type === "turn_started")).toHaveLength(2);
  });

  it("past QUEUE_MAX_PER_THREAD answers busy and stores nothing more", async () => {
    const held = gate();
    server = await startChatServer(answering({ first: held.promise }), {
      busy: { policy: "reject", queueMax: 2 },
    });
    const client = await server.connect();
    const threadId = await startHeld(client, "first");
    await enqueue(client, threadId, "a", "r1");
    await enqueue(client, threadId, "b", "r2");
    const queuedRows = await server.countRows("queued_messages");
    client.command("chat_message", { content: "c", thread_id: threadId, on_busy: "queue" }, "r3");
    expect(await errorFor(client, "r3")).toMatchObject({ code: "busy" });
    expect(client.received.some((f) => f.type === "message_queued" && f.request_id === "r3")).toBe(false);
    expect(await server.countRows("queued_messages")).toBe(queuedRows);
    expect((await queueOf(server, threadId)).map((q) => q.content)).toEqual(["a", "b"]);
    held.open();
    for (let i = 0; i < 3; i++) await client.collectUntil(isDone);
    expect(server.provider.requests.map(lastUser)).toEqual(["first", "a", "b"]);
  });

  it("without on_busy the server's default (reject) answers busy as before, storing nothing", async () => {
    const held = gate();
    server = await startChatServer(answering({ first: held.promise }));
    const client = await server.connect();
    const threadId = await startHeld(client, "first");
    const before = [await server.countRows("messages"), await server.countRows("queued_messages")];
    client.command("chat_message", { content: "no policy", thread_id: threadId }, "r1");
    expect(await errorFor(client, "r1")).toMatchObject({ code: "busy" });
    client.command("chat_message", { content: "reject", thread_id: threadId, on_busy: "reject" }, "r2");
    expect(await errorFor(client, "r2")).toMatchObject({ code: "busy" });
    expect([await server.countRows("messages"), await server.countRows("queued_messages")]).toEqual(before);
    expect(await queueOf(server, threadId)).toEqual([]);
    held.open();
    await client.collectUntil(isDone);
    await client.ping();
    expect(client.received.filter((f) => f.type === "turn_started")).toHaveLength(1);
    expect(server.provider.calls).toBe(1);
  });

  it("with BUSY_POLICY queue, a chat_message without on_busy is queued; on_busy reject still refuses", async () => {
    const held = gate();
    server = await startChatServer(answering({ first: held.promise }), {
      busy: { policy: "queue", queueMax: 10 },
    });
    const client = await server.connect();
    const threadId = await startHeld(client, "first");
    client.command("chat_message", { content: "by default", thread_id: threadId }, "r1");
    expect(await client.next("message_queued")).toMatchObject({
      mode: "queue",
      position: 1,
      request_id: "r1",
    });
    client.command("chat_message", { content: "no", thread_id: threadId, on_busy: "reject" }, "r2");
    expect(await errorFor(client, "r2")).toMatchObject({ code: "busy" });
    held.open();
    await client.collectUntil(isDone);
    const next = await client.collectUntil(isDone);
    expect(finalOf(next)).toMatchObject({ content: "re:by default" });
    expect(server.provider.requests.map(lastUser)).toEqual(["first", "by default"]);
  });

  it("while the turn waits on the user, queued messages wait too and run after the answered turn ends", async () => {
    server = await startChatServer((request) => {
      const last = request.messages.at(-1);
      if (lastUser(request) === "ask me")
        return last?.role === "tool"
          ? { text: `answered: ${last.content}` }
          : { text: "Asking.", toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which?" } }] };
      return { text: `re:${lastUser(request)}` };
    });
    const client = await server.connect();
    client.command("chat_message", { content: "ask me" });
    const head = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const threadId = threadOf(head);
    const q = await enqueue(client, threadId, "later", "r1");
    expect(q.position).toBe(1);
    // Still waiting: the queue shows it, the turn waits, the model was not asked.
    expect((await queueOf(server, threadId)).map((m) => m.message_id)).toEqual([q.message_id]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
    const list = (await (await server.fetch("/api/threads")).json()) as { threads: ThreadSummary[] };
    expect(list.threads.find((t) => t.id === threadId)).toMatchObject({
      state: "waiting_on_user",
      queued: 1,
    });
    expect(server.provider.calls).toBe(1);

    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" });
    const answered = await client.collectUntil(isDone);
    expect(finalOf(answered).content).toMatch(/^answered: /);
    expect(turnStarts(answered)).toHaveLength(0);
    const next = await client.collectUntil(isDone);
    expect(turnStarts(next).map((f) => f.user_message_id)).toEqual([q.message_id]);
    expect(finalOf(next)).toMatchObject({ content: "re:later", status: "complete" });
    expect(lastUser(server.provider.requests.at(-1)!)).toBe("later");
    const messages = await rows(server, threadId);
    expect(shape(messages).slice(-2)).toEqual(["user:later", "assistant:re:later"]);
    expectChained(messages);
  });
  it("a message sent again with the request_id of one still queued is answered for that one and stores nothing", async () => {
    const held = gate();
    server = await startChatServer(answering({ first: held.promise }));
    const client = await server.connect();
    const threadId = await startHeld(client, "first");
    const sent = await enqueue(client, threadId, "second", "r-again");
    // A client that lost message_queued to a dropped socket sends the same frame on a new one.
    const again = await server.connect();
    const repeat = await enqueue(again, threadId, "second", "r-again");
    expect(repeat).toMatchObject({ message_id: sent.message_id, position: 1, mode: "queue" });
    expect((await queueOf(server, threadId)).map((q) => q.message_id)).toEqual([sent.message_id]);
    held.open();
    await until(
      async () => (await rows(server as ChatTestServer, threadId)).length === 4,
      "the queued message's turn stored",
    );
    const users = (await rows(server, threadId)).filter((r) => r.role === "user");
    expect(users.map((r) => [r.id, r.content])).toEqual([
      [users[0]?.id, "first"],
      [sent.message_id, "second"],
    ]);
  });
});

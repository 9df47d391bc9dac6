/**
 * Issue 38, on_busy steer and interrupt through the real socket: a steer joins the running turn's root
 * conversation before its next model call (after the tool results), or starts the next turn when the
 * running one ends first; an interrupt stops the running turn (partial kept) and starts at once.
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { waitingTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import {
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

const turnStarts = (frames: ServerFrame[]) =>
  frames.filter((f): f is Frame<"turn_started"> => f.type === "turn_started");
const hasToolResult = (r: ProviderRequest) => r.messages.some((m) => m.role === "tool");

describe("steer", () => {
  it("sent while a tool runs: the next root model call gets it as a user message after the tool results; its steered message frame comes first", async () => {
    const tool = waitingTool("wait_here");
    server = await startChatServer(
      (request) =>
        hasToolResult(request)
          ? { text: ["steered ", "answer"] }
          : { text: "Working.", toolCalls: [{ id: "w1", name: "wait_here" }] },
      { extraTools: [tool] },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "do the job" });
    await tool.started;
    const threadId = threadOf([await client.next("thread")]);
    client.command(
      "chat_message",
      { content: "use the blue one", thread_id: threadId, on_busy: "steer" },
      "s1",
    );
    const queued = await client.next("message_queued");
    expect(queued).toMatchObject({ thread_id: threadId, mode: "steer", position: 1, request_id: "s1" });
    expect((await queueOf(server, threadId)).map((q) => [q.message_id, q.mode])).toEqual([
      [queued.message_id, "steer"],
    ]);
    expect(server.provider.calls).toBe(1);

    tool.release("job done");
    const frames = await client.collectUntil(isDone);
    // The model's second call: the tool result, then the steer as a user message.
    expect(server.provider.calls).toBe(2);
    expect(seen(server.provider.requests[1])).toEqual([
      "user:do the job",
      "assistant:Working.",
      "tool:w1",
      "user:use the blue one",
    ]);
    // The steered message frame, then that call's chunks.
    const steered = frames.findIndex((f) => f.type === "message" && f.steered === true);
    expect(steered).toBeGreaterThanOrEqual(0);
    expect(frames[steered]).toMatchObject({
      type: "message",
      steered: true,
      message: { id: queued.message_id, role: "user", content: "use the blue one" },
    });
    const firstChunk = frames.findIndex((f) => f.type === "chunk" && f.content === "steered ");
    expect(firstChunk).toBeGreaterThan(steered);
    const toolEnd = frames.findIndex((f) => f.type === "tool_call_update" && f.status === "end");
    expect(toolEnd).toBeLessThan(steered);
    // Same turn: only its own turn_started (for the first message), one done.
    const firstUser = frames.find(
      (f): f is Frame<"message"> => f.type === "message" && f.message.role === "user",
    );
    expect(firstUser?.message.content).toBe("do the job");
    expect(turnStarts(frames).map((f) => f.user_message_id)).toEqual([firstUser?.message.id]);
    expect(frames.filter(isDone)).toHaveLength(1);
    expect(finalOf(frames)).toMatchObject({ content: "steered answer", status: "complete" });

    // On the branch, in order, chained; the queue is empty.
    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual([
      "user:do the job",
      "assistant:Working.",
      "tool:w1",
      "user:use the blue one",
      "assistant:steered answer",
    ]);
    expect(messages[3]?.id).toBe(queued.message_id);
    expectChained(messages);
    expect(await queueOf(server, threadId)).toEqual([]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
  });

  it("to a turn that ends before another model call: starts the next turn like a queued message", async () => {
    const held = gate();
    server = await startChatServer((request) =>
      lastUser(request) === "first"
        ? { gate: held.promise, text: "re:first" }
        : { text: `re:${lastUser(request)}` },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "first" });
    const threadId = (await client.next("thread")).thread_id as string;
    await client.next("turn_started");
    client.command("chat_message", { content: "too late", thread_id: threadId, on_busy: "steer" }, "s1");
    const queued = await client.next("message_queued");
    expect(queued).toMatchObject({ mode: "steer", position: 1 });

    held.open();
    const first = await client.collectUntil(isDone);
    expect(finalOf(first)).toMatchObject({ content: "re:first", status: "complete" });
    expect(first.some((f) => f.type === "message" && f.steered === true)).toBe(false);
    const next = await client.collectUntil(isDone);
    expect(turnStarts(next).map((f) => f.user_message_id)).toEqual([queued.message_id]);
    expect(finalOf(next)).toMatchObject({ content: "re:too late", status: "complete" });
    expect(seen(server.provider.requests[1])).toEqual(["user:first", "assistant:re:first", "user:too late"]);
    expect(shape(await rows(server, threadId))).toEqual([
      "user:first",
      "assistant:re:first",
      "user:too late",
      "assistant:re:too late",
    ]);
    expect(await queueOf(server, threadId)).toEqual([]);
  });
});

describe("interrupt", () => {
  it("stops the running turn (partial kept, stopped) and starts the message at once, ahead of the queue", async () => {
    server = await startChatServer((request) =>
      lastUser(request) === "long story"
        ? { text: ["Once ", "upon"], hold: "until-aborted" }
        : { text: `re:${lastUser(request)}` },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "long story" });
    const head = await client.collectUntil((f) => f.type === "chunk" && f.content === "upon");
    const threadId = threadOf(head);
    client.command("chat_message", { content: "later", thread_id: threadId, on_busy: "queue" }, "q1");
    const later = await client.next("message_queued");
    expect(later.position).toBe(1);

    client.command(
      "chat_message",
      { content: "stop, do this", thread_id: threadId, on_busy: "interrupt" },
      "i1",
    );
    const now = await client.next("message_queued", { where: (f) => f.request_id === "i1" });
    expect(now).toMatchObject({ mode: "interrupt", position: 1 });

    const stopped = await client.collectUntil(isDone);
    expect(stopped.filter((f) => f.type === "generation_stopped")).toHaveLength(1);
    const partial = finalOf(stopped);
    expect(partial).toMatchObject({ role: "assistant", content: "Once upon", status: "stopped" });

    const interrupting = await client.collectUntil(isDone);
    expect(turnStarts(interrupting).map((f) => f.user_message_id)).toEqual([now.message_id]);
    const user = interrupting.find(
      (f): f is Frame<"message"> => f.type === "message" && f.message.role === "user",
    );
    expect(user?.message).toMatchObject({
      id: now.message_id,
      content: "stop, do this",
      parent_message_id: partial.id,
    });
    expect(finalOf(interrupting)).toMatchObject({ content: "re:stop, do this", status: "complete" });
    // Then the queued one.
    const queuedTurn = await client.collectUntil(isDone);
    expect(turnStarts(queuedTurn).map((f) => f.user_message_id)).toEqual([later.message_id]);
    expect(server.provider.requests.map(lastUser)).toEqual(["long story", "stop, do this", "later"]);
    expect(seen(server.provider.requests[1])[0]).toBe("user:long story");
    expect(seen(server.provider.requests[1]).at(-1)).toBe("user:stop, do this");

    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual([
      "user:long story",
      "assistant:Once upon",
      "user:stop, do this",
      "assistant:re:stop, do this",
      "user:later",
      "assistant:re:later",
    ]);
    expect(messages[1]?.status).toBe("stopped");
    expectChained(messages);
  });
});

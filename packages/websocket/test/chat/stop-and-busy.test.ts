import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { waitingTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("busy", () => {
  it("refuses a second chat_message on a thread whose turn runs, storing nothing for it", async () => {
    const first = gate();
    server = await startChatServer([{ text: "one" }, { gate: first.promise, text: "two" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "start" });
    const threadId = threadOf(await client.collectUntil(isDone));
    client.command("chat_message", { content: "second turn", thread_id: threadId });
    await client.next("agent_state", { where: (f) => f.state === "thinking" });
    const before = await storedMessages(server, threadId);
    const turnBefore = await server.repos.turns.latest("local", threadId);

    client.command("chat_message", { content: "while busy", thread_id: threadId }, "r-busy");
    expect(await client.next("error")).toMatchObject({ code: "busy", request_id: "r-busy" });
    expect(await storedMessages(server, threadId)).toEqual(before);
    expect((await server.repos.turns.latest("local", threadId))?.id).toBe(turnBefore?.id);
    // A busy answer is not a frame of the turn: it has no seq, and the turn goes on.
    expect(server.provider.calls).toBe(2);

    first.open();
    const rest = await client.collectUntil(isDone);
    expect(rest.filter((f) => f.type === "error")).toEqual([]);
    expect(finalRow(rest)).toMatchObject({ content: "two", status: "complete" });
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => r.content)).toEqual(["start", "one", "second turn", "two"]);
  });

  it("refuses a second chat_message from another socket of the same user too", async () => {
    const held = gate();
    server = await startChatServer([{ gate: held.promise, text: "done" }]);
    const a = await server.connect();
    a.command("chat_message", { content: "start" });
    const thread = await a.next("thread");
    await a.next("agent_state", { where: (f) => f.state === "thinking" });
    const b = await server.connect();
    b.command("chat_message", { content: "me too", thread_id: thread.thread_id });
    expect(await b.next("error")).toMatchObject({ code: "busy" });
    held.open();
    await a.collectUntil(isDone);
    expectWellFormedTurn(a.received);
    expect(b.received.map((f) => f.type)).toEqual(["error"]);
    expect((await storedMessages(server, threadOf([thread]))).map((r) => r.content)).toEqual([
      "start",
      "done",
    ]);
  });
});

type Message = Extract<ServerFrame, { type: "message" }>;

describe("stop", () => {
  it("stops mid-stream: generation_stopped, the partial text stored with status stopped, done last", async () => {
    server = await startChatServer([{ text: ["Once upon ", "a time"], hold: "until-aborted" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "tell a story" });
    const head = await client.collectUntil((f) => f.type === "chunk" && f.content === "a time");
    const threadId = threadOf(head);
    client.command("stop", { thread_id: threadId });
    const frames = [...head, ...(await client.collectUntil(isDone))];
    expectWellFormedTurn(frames);
    expect(frames.filter((f) => f.type === "generation_stopped")).toHaveLength(1);
    const final = finalRow(frames);
    expect(final).toMatchObject({ role: "assistant", content: "Once upon a time", status: "stopped" });
    expect(frames.findIndex((f) => f.type === "generation_stopped")).toBeGreaterThan(
      frames.findIndex((f) => f.type === "message" && (f as Message).message.id === final.id),
    );
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.content, r.status])).toEqual([
      ["user", "tell a story", "complete"],
      ["assistant", "Once upon a time", "stopped"],
    ]);
    // The thread is free again.
    await client.ping();
  });

  it("stops mid-tool: the tool sees the abort, its end frame comes, the turn ends stopped", async () => {
    const tool = waitingTool("long_job");
    server = await startChatServer(
      [{ text: "Starting the job", toolCalls: [{ id: "job_1", name: "long_job" }] }],
      {
        extraTools: [tool],
      },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "run the job" });
    await tool.started;
    const threadId = threadOf([await client.next("thread")]);
    client.command("stop", { thread_id: threadId });
    const frames = [
      ...client.received.filter((f) => f.type === "thread"),
      ...(await client.collectUntil(isDone)),
    ];
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    expect(tool.aborted()).toBe(true);
    const end = frames.find((f) => f.type === "tool_call_update" && f.status === "end");
    expect(end).toMatchObject({ tool_call_id: "job_1", is_error: true, parent_id: null, depth: 0 });
    expect(frames.filter((f) => f.type === "generation_stopped")).toHaveLength(1);
    expect(finalRow(frames)).toMatchObject({ content: "Starting the job", status: "stopped" });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
    const rows = await storedMessages(server, threadId);
    expect(rows.at(-1)).toMatchObject({ role: "assistant", status: "stopped" });
    // Every stored tool call has its result row, so the next turn's history is well formed.
    const calls = rows.flatMap((r) => r.tool_calls ?? []).map((c) => c.id);
    expect(rows.filter((r) => r.role === "tool").map((r) => r.tool_call_id)).toEqual(calls);
  });

  it("answers not_found to a stop when no turn runs", async () => {
    server = await startChatServer([{ text: "done" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi" });
    const threadId = threadOf(await client.collectUntil(isDone));
    client.command("stop", { thread_id: threadId });
    expect(await client.next("error")).toMatchObject({ code: "not_found" });
  });
});

describe("stop while the turn waits on the user", () => {
  it("ends the waiting calls at every depth, stores the partial answer as stopped, done last", async () => {
    server = await startChatServer((request) => {
      const first = request.messages[0];
      const inSubtask = first?.role === "user" && first.content === "sub:ask";
      if (inSubtask) return { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Sure?" } }] };
      return {
        text: "Checking with you.",
        toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Ask", instructions: "sub:ask" } }],
      };
    });
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    const head = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const threadId = threadOf(head);
    client.command("stop", { thread_id: threadId });
    const rest = await client.collectUntil(isDone);
    const frames = [...head, ...rest];
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    const ends = rest.filter((f) => f.type === "tool_call_update");
    expect(ends.map((f) => [f.tool_call_id, f.status, f.is_error, f.parent_id, f.depth])).toEqual([
      ["ask_1", "end", true, "sub_1", 1],
      ["sub_1", "end", true, null, 0],
    ]);
    expect(rest.filter((f) => f.type === "generation_stopped")).toHaveLength(1);
    const final = finalRow(rest);
    expect(final).toMatchObject({ status: "stopped", content: "Checking with you." });
    expect(final.execution_tree?.nodes.every((n) => n.result_preview !== undefined && n.is_error)).toBe(true);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
    // The root's pending call has its result row, so the stored history stays paired.
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.tool_call_id ?? null])).toEqual([
      ["user", null],
      ["assistant", null],
      ["tool", "sub_1"],
      ["assistant", null],
    ]);
    // The question is gone: answering it now is refused.
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "yes" });
    expect(await client.next("error")).toMatchObject({ code: "bad_request" });
  });
});

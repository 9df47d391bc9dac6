import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let servers: ChatTestServer[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const instructionsOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};
const toolResult = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last.content : undefined;
};

/** Root → run_subtask "outer" → run_subtask "inner" → ask_user "q1" (depth 2). */
const nestedAsk = (request: ProviderRequest): ScriptedStep => {
  const result = toolResult(request);
  switch (instructionsOf(request)) {
    case "sub:inner":
      return result === undefined
        ? { toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Proceed?" } }] }
        : { text: `inner: ${result}` };
    case "sub:outer":
      return result === undefined
        ? {
            toolCalls: [
              { id: "inner", name: "run_subtask", args: { title: "Inner", instructions: "sub:inner" } },
            ],
          }
        : { text: `outer: ${result}` };
    default:
      return result === undefined
        ? {
            toolCalls: [
              { id: "outer", name: "run_subtask", args: { title: "Outer", instructions: "sub:outer" } },
            ],
          }
        : { text: `root: ${result}` };
  }
};

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

async function suspendOnFirstServer(dbPath: string) {
  const first = await startChatServer(nestedAsk, { dbPath });
  servers.push(first);
  const client = await first.connect();
  client.command("chat_message", { content: "go deep" });
  const frames = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
  const question = frames.find((f): f is Frame<"question"> => f.type === "question");
  expect(question).toMatchObject({ tool_call_id: "q1", question: "Proceed?" });
  expect(frames.find((f) => f.type === "tool_call_update" && f.tool_call_id === "q1")).toMatchObject({
    parent_id: "inner",
    depth: 2,
  });
  const threadId = threadOf(frames);
  await first.close();
  return { threadId, lastSeq: (frames.at(-1) as { seq: number }).seq };
}

describe("a turn waiting on the user survives a restart", () => {
  it("is busy on a new server over the same database, and the answer resumes the turn from the stored state", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-restart-"));
    const dbPath = join(dir, "agentwire.db");
    const { threadId, lastSeq } = await suspendOnFirstServer(dbPath);

    const second = await startChatServer(nestedAsk, { dbPath });
    servers.push(second);
    expect((await second.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
    const client = await second.connect();
    // The stored waiting state is what makes the thread busy: no second turn starts on the new process.
    const rowsBefore = await second.countRows("messages");
    client.command("chat_message", { thread_id: threadId, content: "are you there?" }, "r-busy");
    expect(await client.next("error")).toMatchObject({ code: "busy", request_id: "r-busy" });
    expect(await second.countRows("messages")).toBe(rowsBefore);
    expect(await second.countRows("turns")).toBe(1);
    client.command("answer", { thread_id: threadId, tool_call_id: "q1", answer: "yes" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames, lastSeq + 1);
    const ends = frames.filter((f): f is Frame<"tool_call_update"> => f.type === "tool_call_update");
    expect(ends.map((e) => [e.tool_call_id, e.status, e.parent_id, e.depth, e.result])).toEqual([
      ["q1", "end", "inner", 2, "yes"],
      ["inner", "end", "outer", 1, "inner: yes"],
      ["outer", "end", null, 0, "outer: inner: yes"],
    ]);
    // The new process's model calls continue the stored conversations of each level.
    expect(second.provider.requests.map(instructionsOf)).toEqual(["sub:inner", "sub:outer", "go deep"]);
    expect(second.provider.requests[0]?.messages.at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "q1",
      content: "yes",
    });
    const final = finalRow(frames);
    expect(final).toMatchObject({ content: "root: outer: inner: yes", status: "complete" });
    expect(final.execution_tree?.nodes.map((n) => [n.id, n.parent_id])).toEqual([
      ["outer", null],
      ["inner", "outer"],
      ["q1", "inner"],
    ]);
    expect((await second.repos.turns.latest("local", threadId))?.status).toBe("complete");
    const rows = await storedMessages(second, threadId);
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("resume_chat on the new server sends the question again, then the answer completes the turn", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-restart-"));
    const dbPath = join(dir, "agentwire.db");
    const { threadId, lastSeq } = await suspendOnFirstServer(dbPath);

    const second = await startChatServer(nestedAsk, { dbPath });
    servers.push(second);
    const client = await second.connect();
    client.command("resume_chat", { thread_id: threadId, last_seq: lastSeq });
    const replay = await client.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.map((f) => f.type)).toEqual(["question", "agent_state", "chat_resumed"]);
    expect(replay[0]).toMatchObject({ seq: lastSeq + 1, tool_call_id: "q1", question: "Proceed?" });
    expect(replay[2]).toMatchObject({ status: "waiting_on_user", last_seq: lastSeq + 2, replayed: 2 });
    client.command("answer", { thread_id: threadId, tool_call_id: "q1", answer: "ok" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames, lastSeq + 3);
    expect(finalRow(frames)).toMatchObject({ content: "root: outer: inner: ok", status: "complete" });
  });
});

import type { BudgetLimits } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

const lastSeq = (frames: ServerFrame[]) => Math.max(...frames.map((f) => ("seq" in f ? (f.seq ?? 0) : 0)));
const usageOf = (frames: ServerFrame[]) => frames.findLast((f): f is Frame<"usage"> => f.type === "usage");

/** Runs a turn that ends at a limit, then continues it; returns both parts' frames. */
async function stopThenContinue(client: TestClient, content: string) {
  client.command("chat_message", { content });
  const first = await client.collectUntil(isDone);
  const threadId = threadOf(first);
  client.command("continue_turn", { thread_id: threadId }, "go-on");
  const second = await client.collectUntil(isDone);
  return { first, second, threadId };
}

type Case = {
  status: "budget_exceeded" | "iteration_limit";
  limits: Partial<BudgetLimits>;
  script: ScriptedStep[];
  /** Model calls of the first part, and of both parts. */
  calls: [number, number];
};

const cases: Record<string, Case> = {
  "budget_exceeded (model calls)": {
    status: "budget_exceeded",
    limits: { MAX_TOTAL_LLM_CALLS: 1 },
    script: [
      { text: "Looking it up", toolCalls: [{ id: "w1", name: "write_note", args: { text: "a" } }] },
      { text: "Done after the note" },
    ],
    calls: [1, 2],
  },
  // The limit stops the turn after the model asked for a call that never ran: the continuation runs
  // it, although it is not idempotent (nothing of it ran before).
  "budget_exceeded (tokens, calls asked for but never run)": {
    status: "budget_exceeded",
    limits: { MAX_TOTAL_TOKENS: 100 },
    script: [
      {
        text: "Writing",
        toolCalls: [{ id: "w1", name: "write_note", args: { text: "a" } }],
        usage: { inputTokens: 90, outputTokens: 20 },
      },
      { text: "Done after the note", usage: { inputTokens: 10, outputTokens: 5 } },
    ],
    calls: [1, 2],
  },
  iteration_limit: {
    status: "iteration_limit",
    limits: { MAX_ITERATIONS_PER_LEVEL: 2 },
    script: [
      { text: "One", toolCalls: [{ id: "e1", name: "echo", args: { text: "1" } }] },
      { text: "Two", toolCalls: [{ id: "w1", name: "write_note", args: { text: "a" } }] },
      { text: "Done after the note" },
    ],
    calls: [2, 3],
  },
};

describe("continue_turn after a budget", () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: the same turn goes on with a fresh budget and completes; tree, usage and ledger add up`, async () => {
      const note = echoTool("write_note", "workspace_write");
      server = await startChatServer(c.script, { limits: c.limits, extraTools: [echoTool(), note] });
      const client = await server.connect();
      const { first, second, threadId } = await stopThenContinue(client, "work");

      expect(finalRow(first).status).toBe(c.status);
      const turnId = (await server.repos.turns.latest("local", threadId))?.id;
      expect(usageOf(first)?.llm_calls).toBe(c.calls[0]);

      // The continuation is the same thread log, seq going on, starting with agent_state resumed.
      expectWellFormedTurn(second, lastSeq(first) + 1);
      expectStartsEnded(second);
      expect(second[0]).toMatchObject({ type: "agent_state", state: "resumed" });
      const final = finalRow(second);
      expect(final).toMatchObject({ role: "assistant", status: "complete", content: "Done after the note" });
      expect(note.calls).toHaveLength(1);

      // One turn: its row ends complete; the ledger, usage and tree hold both parts.
      const row = await server.repos.turns.latest("local", threadId);
      expect(row).toMatchObject({ id: turnId, status: "complete", error: null });
      expect(usageOf(second)?.llm_calls).toBe(c.calls[1]);
      expect(final.usage?.llm_calls).toBe(c.calls[1]);
      expect(await server.repos.llmCalls.forTurn("local", turnId as string)).toHaveLength(c.calls[1]);
      const firstIds = finalRow(first).execution_tree?.nodes.map((n) => n.id) ?? [];
      const ids = final.execution_tree?.nodes.map((n) => n.id) ?? [];
      expect(ids).toEqual(expect.arrayContaining([...firstIds, "w1"]));
      expect(new Set(ids).size).toBe(ids.length);

      // The model saw the conversation go on: the note's result, no restart error.
      const lastRequest = server.provider.requests.at(-1);
      const noteResult = lastRequest?.messages.find((m) => m.role === "tool" && m.toolCallId === "w1");
      expect(noteResult).toMatchObject({ content: "echo:a" });
      expect(noteResult && "isError" in noteResult && noteResult.isError).toBeFalsy();

      // A reload draws one turn: the user's message, then the continued answer last.
      const rows = await storedMessages(server, threadId);
      expect(rows.filter((r) => r.role === "user")).toHaveLength(1);
      expect(rows.at(-1)).toMatchObject({ status: "complete", content: "Done after the note" });

      // A client that saw the first part catches up on the continuation, every frame once.
      const late = await server.connect();
      late.command("resume_chat", { thread_id: threadId, last_seq: lastSeq(first) });
      const replay = await late.collectUntil((f) => f.type === "chat_resumed");
      const seqs = (frames: ServerFrame[]) => frames.flatMap((f) => ("seq" in f && f.seq ? [f.seq] : []));
      expect(seqs(replay)).toEqual(seqs(second));
      expect(replay.at(-1)).toMatchObject({ type: "chat_resumed", status: "finished" });

      // Now complete: nothing left to continue.
      client.command("continue_turn", { thread_id: threadId }, "again");
      expect(await client.next("error", { where: (e) => e.request_id === "again" })).toMatchObject({
        code: "not_found",
      });
    });
  }

  it("a second continue_turn while the continuation runs is busy, and so is a chat_message", async () => {
    const held = gate();
    server = await startChatServer(
      [
        { text: "One", toolCalls: [{ id: "e1", name: "echo", args: { text: "1" } }] },
        { gate: held.promise, text: "Finally" },
      ],
      { limits: { MAX_TOTAL_LLM_CALLS: 1 }, extraTools: [echoTool()] },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "work" });
    const threadId = threadOf(await client.collectUntil(isDone));
    client.command("continue_turn", { thread_id: threadId }, "first");
    await client.next("agent_state", { where: (f) => f.state === "thinking" });
    client.command("continue_turn", { thread_id: threadId }, "second");
    expect(await client.next("error", { where: (e) => e.request_id === "second" })).toMatchObject({
      code: "busy",
    });
    client.command("chat_message", { thread_id: threadId, content: "meanwhile" }, "message");
    expect(await client.next("error", { where: (e) => e.request_id === "message" })).toMatchObject({
      code: "busy",
    });
    held.open();
    const rest = await client.collectUntil(isDone);
    expect(finalRow(rest)).toMatchObject({ status: "complete", content: "Finally" });
    expect(client.received.filter((f) => f.type === "error" && f.request_id === "first")).toEqual([]);
  });

  it("is not_found for another user's thread, a missing thread, and a turn that completed", async () => {
    server = await startChatServer(
      [
        { text: "One", toolCalls: [{ id: "e1", name: "echo", args: { text: "1" } }] },
        { text: "Plain answer" },
      ],
      { auth: "token", limits: { MAX_TOTAL_LLM_CALLS: 1 }, extraTools: [echoTool()] },
    );
    const alice = await server.connect({ token: await server.createToken("alice") });
    const bob = await server.connect({ token: await server.createToken("bob") });
    alice.command("chat_message", { content: "work" });
    const first = await alice.collectUntil(isDone);
    expect(finalRow(first).status).toBe("budget_exceeded");
    const threadId = threadOf(first);

    const refused = async (client: TestClient, id: string, requestId: string) => {
      client.command("continue_turn", { thread_id: id }, requestId);
      return client.next("error", { where: (e) => e.request_id === requestId });
    };
    const other = await refused(bob, threadId, "bob");
    const missing = await refused(bob, "no-such-thread", "missing");
    expect(other).toMatchObject({ code: "not_found" });
    // Exactly the answer a missing thread gets: nothing says the thread exists.
    expect(other.message).toBe(missing.message);
    expect((await server.repos.turns.latest("alice", threadId))?.status).toBe("budget_exceeded");
    expect(bob.received.filter((f) => f.type !== "error" && f.type !== "pong")).toEqual([]);

    // Alice's own continue works; afterwards the turn completed and is refused.
    alice.command("continue_turn", { thread_id: threadId }, "go-on");
    expect(finalRow(await alice.collectUntil(isDone)).status).toBe("complete");
    expect(await refused(alice, threadId, "done")).toMatchObject({ code: "not_found" });
  });

  it("a thread whose last turn completed normally is refused with not_found", async () => {
    server = await startChatServer([{ text: "All done" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi" });
    const threadId = threadOf(await client.collectUntil(isDone));
    client.command("continue_turn", { thread_id: threadId }, "r");
    expect(await client.next("error", { where: (e) => e.request_id === "r" })).toMatchObject({
      code: "not_found",
    });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
  });
});

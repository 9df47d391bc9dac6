import { randomUUID } from "node:crypto";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, type RecoveryCause, recoverOrEndTurn, recoverTurn } from "../../src/index.js";
import { threadOf } from "../chat/turn-helpers.js";

// Every way a turn opens goes through openTurn; a write that fails on the way must leave no turn
// `running` (in the database or in this process) and the thread must take the next turn.

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

/** The next call of `target[method]` rejects (a database that fails once); later calls go through. */
function failOnce<T extends object, K extends keyof T>(target: T, method: K): { failed: () => boolean } {
  const original = target[method] as (...args: unknown[]) => unknown;
  let failed = false;
  (target as Record<K, unknown>)[method] = (...args: unknown[]) => {
    if (failed) return original.apply(target, args);
    failed = true;
    return Promise.reject(new Error("disk I/O error (injected)"));
  };
  return { failed: () => failed };
}

const errorOf = (frames: ServerFrame[]) => frames.find((f): f is Frame<"error"> => f.type === "error");
const live = (threadId: string) => server?.chat.turns.get(threadId)?.active ?? false;
const latest = (threadId: string) => server?.repos.turns.latest("local", threadId);

/**
 * Sends a message on the thread and waits for its turn to end; the final row's status. Frames of an
 * earlier turn still being committed (an ended lost turn's) may reach the new watcher first: only the
 * `done` after this message's own row counts.
 */
async function nextTurnEnds(client: TestClient, threadId: string): Promise<string | undefined> {
  client.command("chat_message", { thread_id: threadId, content: "again" });
  let mine = false;
  const frames = await client.collectUntil((f) => {
    if (f.type === "message" && f.message.role === "user" && f.message.content === "again") mine = true;
    return mine && isDone(f);
  });
  const last = frames.filter((f): f is Frame<"message"> => f.type === "message").at(-1);
  return last?.message.status;
}

describe("openTurn rolls back every opening whose write fails", () => {
  it("start: the user message cannot be stored; the turn row ends `error`, nothing runs, the thread takes the next message", async () => {
    server = await startChatServer([{ text: "first" }, { text: "second" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hello" });
    const threadId = threadOf(await client.collectUntil(isDone));
    const append = failOnce(server.repos.messages, "append");
    client.command("chat_message", { thread_id: threadId, content: "this one fails" }, "r-fail");
    const refused = await client.collectUntil((f) => f.type === "error");
    expect(append.failed()).toBe(true);
    expect(errorOf(refused)?.code).toBe("internal");
    expect(live(threadId)).toBe(false);
    const row = await latest(threadId);
    expect(row?.status).toBe("error");
    expect(await nextTurnEnds(client, threadId)).toBe("complete");
  });

  it("resume: the answer's row update fails; the turn still waits on the user, and a second answer resumes it", async () => {
    const script: ScriptedStep[] = [
      { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] },
      { text: "blue it is" },
    ];
    server = await startChatServer(script);
    const client = await server.connect();
    client.command("chat_message", { content: "pick a color" });
    const head = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const threadId = threadOf(head);
    const update = failOnce(server.repos.turns, "update");
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" });
    const refused = await client.collectUntil((f) => f.type === "error");
    expect(update.failed()).toBe(true);
    expect(errorOf(refused)?.code).toBe("internal");
    // Before openTurn the turn stayed `running` here with nothing driving it.
    expect(server.chat.turns.get(threadId)?.status).toBe("waiting_user");
    const row = await latest(threadId);
    expect(row?.status).toBe("waiting_user");
    expect(row?.suspendedState).not.toBeNull();
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" });
    const rest = await client.collectUntil(isDone);
    expect(rest.filter((f): f is Frame<"message"> => f.type === "message").at(-1)?.message).toMatchObject({
      status: "complete",
      content: "blue it is",
    });
  });

  it("extend: continue_turn's row update fails; the turn keeps its end, and continue_turn works after", async () => {
    server = await startChatServer(
      [
        { text: "Looking", toolCalls: [{ id: "w1", name: "write_note", args: { text: "a" } }] },
        { text: "done after continuing" },
      ],
      { limits: { MAX_TOTAL_LLM_CALLS: 1 }, extraTools: [echoTool("write_note", "workspace_write")] },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    const threadId = threadOf(await client.collectUntil(isDone));
    expect((await latest(threadId))?.status).toBe("budget_exceeded");
    const update = failOnce(server.repos.turns, "update");
    client.command("continue_turn", { thread_id: threadId });
    const refused = await client.collectUntil((f) => f.type === "error");
    expect(update.failed()).toBe(true);
    expect(errorOf(refused)?.code).toBe("internal");
    expect(live(threadId)).toBe(false);
    expect((await latest(threadId))?.status).toBe("budget_exceeded");
    client.command("continue_turn", { thread_id: threadId });
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "agent_state" && f.state === "resumed")).toBe(true);
  });

  for (const cause of [{}, { handedOver: true }] as RecoveryCause[]) {
    const verb = cause.handedOver ? "hand over" : "recover";
    it(`${verb}: a read of the left turn fails; it ends interrupted, no lease or registration stays, the thread takes new turns`, async () => {
      server = await startChatServer([{ text: "recovered answer" }, { text: "next" }]);
      const { repos, chat, frames } = server;
      const logger = createLogger({ level: "silent" });
      const { threadId, row } = await leftRunning(server);
      // The rebuild's read of the ledger, one of the opening's own steps on both ways in.
      const failing = failOnce(repos.llmCalls, "forTurn");
      const recover = (r: typeof row, c?: RecoveryCause) => recoverTurn(chat, frames, repos, logger, r, 3, c);
      const outcome = await recoverOrEndTurn(frames, repos, logger, row, chat.threadStates, recover, cause);
      expect(failing.failed()).toBe(true);
      expect(outcome).toBe("interrupted");
      expect((await latest(threadId))?.status).toBe("interrupted");
      expect(live(threadId)).toBe(false);
      const client = await server.connect();
      expect(await nextTurnEnds(client, threadId)).toBe("complete");
    });

    it(`${verb}: without a failure the same left turn is taken over and answered (the case above is real)`, async () => {
      server = await startChatServer([{ text: "recovered answer" }]);
      const { repos, chat, frames } = server;
      const logger = createLogger({ level: "silent" });
      const { threadId, row } = await leftRunning(server);
      const recover = (r: typeof row, c?: RecoveryCause) => recoverTurn(chat, frames, repos, logger, r, 3, c);
      const outcome = await recoverOrEndTurn(frames, repos, logger, row, chat.threadStates, recover, cause);
      expect(outcome).toBe("continued");
      await server.chat.turns.get(threadId)?.driving;
      expect((await latest(threadId))?.status).toBe("complete");
    });
  }
});

/** A turn another process left `running` before its first step: its row, start record and user message. */
async function leftRunning(server: ChatTestServer) {
  const { repos } = server;
  const thread = await repos.threads.create("local", "left behind");
  const turnId = randomUUID();
  const who = { provider: "scripted", model: "scripted-1" };
  await repos.turns.start("local", thread.id, {
    id: turnId,
    ...who,
    checkpoint: { version: 1, start: { ...who, chatContext: { kind: "thread" }, memoryEnabled: true } },
  });
  await repos.messages.append("local", thread.id, {
    role: "user",
    content: "answer me",
    status: "complete",
    turnId,
  });
  const row = await repos.turns.latest("local", thread.id);
  if (!row) throw new Error("no turn row");
  return { threadId: thread.id, row };
}

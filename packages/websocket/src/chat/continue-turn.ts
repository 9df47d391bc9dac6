import { ExecutionTreeBuilder, resumeUnifiedAgentLoop, type Tool, UsageAccumulator } from "@agentwire/agents";
import { AgentwireError } from "../errors/agentwire-error.js";
import type { RunningTurn } from "../turns/running-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { watchTurn } from "./chat-connection.js";
import type { ChatServices } from "./chat-services.js";
import { closeWaitingCalls } from "./close-waiting-calls.js";
import { recordSeqs } from "./record-seqs.js";
import { readSavedTurn, type SavedTurn } from "./saved-turn.js";
import { driveTurn, finish, type TurnRun } from "./turn-driver.js";
import { turnToolbelt } from "./turn-toolbelt.js";

export type WaitingTurn = { turn: RunningTurn; saved: SavedTurn };

/**
 * The thread's turn that waits on the user, in this process or (after a restart) only in the
 * database, with a RunningTurn to carry its frames; undefined when nothing waits.
 */
export function waitingTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  threadId: string,
): WaitingTurn | undefined {
  const live = chat.turns.get(threadId);
  if (live && live.phase === "running") return undefined;
  const row = conn.repos.turns.latest(conn.userId, threadId);
  if (!row || row.status !== "waiting_user") return undefined;
  const saved = readSavedTurn(row.suspendedState);
  if (!saved) return undefined;
  if (live && live.phase === "waiting_on_user" && live.turnId === row.id) return { turn: live, saved };
  const thread = conn.repos.threads.get(conn.userId, threadId);
  const turn = chat.turns.start(threadId, conn.userId, row.id, Math.max(thread?.lastSeq ?? 0, row.lastSeq));
  if (!turn) return undefined;
  recordSeqs(turn, conn.repos, conn.logger);
  turn.phase = "waiting_on_user";
  return { turn, saved };
}

/** A TurnRun that continues a saved turn (its tree, usage and budget counters carried over). */
function runOf(conn: ConnectionContext, chat: ChatServices, { turn, saved }: WaitingTurn): TurnRun {
  return {
    turn,
    registry: chat.turns,
    repos: conn.repos,
    logger: conn.logger.child({ thread_id: turn.threadId, turn_id: turn.turnId }),
    provider: saved.provider,
    model: saved.model,
    limits: chat.limits,
    tree: new ExecutionTreeBuilder({ from: saved.tree }),
    chatContext: saved.chatContext,
    memoryEnabled: saved.memoryEnabled,
    usageBefore: saved.usage,
    budgetUsed: saved.budgetUsed,
    observer: chat.observer,
  };
}

/**
 * Resumes a waiting turn with the answer to its pending call; `answer` may be computed from the
 * turn's unwrapped toolbelt (an approved tool runs first).
 */
export function continueTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  waiting: WaitingTurn,
  answer: (tools: Map<string, Tool>) => Promise<string | { content: string; isError?: boolean }>,
): void {
  const { turn, saved } = waiting;
  const provider = chat.providers.get(saved.provider);
  if (!provider)
    throw new AgentwireError("bad_request", `provider "${saved.provider}" is no longer configured`);
  turn.phase = "running";
  watchTurn(conn, chat, turn);
  conn.repos.turns.update(conn.userId, turn.turnId, { status: "running", suspendedState: null });
  const run = runOf(conn, chat, waiting);
  const scope = {
    userId: conn.userId,
    threadId: turn.threadId,
    chatContext: saved.chatContext,
    connectionId: conn.connectionId,
    provider: saved.provider,
    model: saved.model,
  };
  void driveTurn(run, async function* (ctx) {
    const belt = await turnToolbelt(chat, scope, saved.memoryEnabled, run.logger);
    const given = await answer(belt.unwrapped);
    return yield* resumeUnifiedAgentLoop({
      provider,
      tools: belt.tools,
      ctx,
      state: saved.state,
      answer: given,
      model: saved.model,
      signal: turn.abort.signal,
    });
  });
}

/** Ends a waiting turn without resuming it (the user stopped it): partial answer kept, status stopped. */
export function stopWaitingTurn(conn: ConnectionContext, chat: ChatServices, waiting: WaitingTurn): void {
  waiting.turn.abort.abort("stop");
  const run = runOf(conn, chat, waiting);
  conn.repos.turns.update(conn.userId, waiting.turn.turnId, { status: "running" });
  closeWaitingCalls(run, waiting.saved.state);
  finish(run, { status: "cancelled", usage: new UsageAccumulator().snapshot() }, waiting.saved.text);
}

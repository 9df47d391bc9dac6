import { type LoopResult, UsageAccumulator } from "@agentwire-chat/agents";
import type { EndedTurnStatus, ErrorCode, StoredMessage, TurnUsage } from "@agentwire-chat/protocol";
import type { NewMessage, SuspendedTurn } from "@agentwire-chat/storage";
import type { TurnSegment } from "./turn-segment.js";

/** How a turn ended (every route reports its end this way): the status it is stored and sent with. */
export type TurnResult = Pick<LoopResult, "usage" | "error"> & {
  status: EndedTurnStatus;
  /** Why it ended, stored on the turn's row when no `error` frame says it (a workflow's failing node). */
  rowError?: string | undefined;
};

/** Stores one row of the thread, sends it as a `message` frame and returns it as stored. */
export async function storeRow(
  run: TurnSegment,
  row: NewMessage,
  echo: { request_id?: string } = {},
): Promise<StoredMessage> {
  const { turn, repos } = run;
  const message = await repos.messages.append(turn.userId, turn.threadId, row);
  turn.emit({ type: "message", message, ...echo });
  return message;
}

/**
 * Queues a write from a synchronous callback of the loop (a root row, a ledger row): the writes run
 * in order, and the driver waits for them before it sends the loop's next frame, so the frames keep
 * the order the loop gave them on either database.
 */
export function queueWrite(run: TurnSegment, write: () => Promise<unknown>): void {
  const writes = (run.writes ?? Promise.resolve()).then(write);
  // settleWrites reports the failure; until it is awaited the rejection must not count as unhandled.
  writes.catch(() => {});
  run.writes = writes;
}

/** Waits for the queued writes; rejects with the first that failed. */
export async function settleWrites(run: TurnSegment): Promise<void> {
  while (run.writes) {
    const writes = run.writes;
    await writes;
    if (run.writes === writes) run.writes = undefined;
  }
}

/**
 * Stores the suspension, then lets the frames that ask the user out: the log held them since the
 * question, so no client sees a question the database cannot answer after a crash.
 */
export async function suspendTurn(run: TurnSegment, saved: SuspendedTurn): Promise<void> {
  const { turn, repos } = run;
  await settleWrites(run);
  turn.status = "waiting_user";
  await repos.turns.update(turn.userId, turn.turnId, { status: "waiting_user", suspendedState: saved });
  const { suspension } = saved.state;
  run.threadStates?.changed({
    userId: turn.userId,
    threadId: turn.threadId,
    state: "waiting_user",
    ...(suspension.kind === "question" && { question: suspension.question }),
  });
  turn.log.release(turn.threadId);
  turn.log.handOff(turn.threadId);
  // Waiting holds no lease: the answer may reach any instance, which claims the turn then.
  await releaseClaim(run);
}

/**
 * Ends a turn on any route: stores the final assistant message (text, tree, usage, status) and the
 * turn row, then sends the frames every turn ends with. Never throws: if the database fails, the
 * client still gets an `internal` error and a clean end.
 */
export async function endTurn(run: TurnSegment, result: TurnResult, text: string): Promise<void> {
  try {
    await settleWrites(run);
    await finish(run, result, text);
  } catch (error) {
    run.logger.error({ err: error }, "could not store the end of the turn");
    run.turn.emit({ type: "error", code: "internal", message: "internal error" });
    endFrames(run, totalUsage(run, result.usage), "error", false);
  }
  await releaseClaim(run);
  const { turn, repos, logger } = run;
  run.afterTurn?.({ userId: turn.userId, threadId: turn.threadId, repos, frames: turn.log, logger });
}

/** Gives up the turn's claim on its thread across instances; a failure only logs (the lease lapses). */
async function releaseClaim(run: TurnSegment): Promise<void> {
  try {
    await run.coordination.release(run.turn.threadId, run.turn.turnId);
  } catch (error) {
    run.logger.warn({ err: error }, "could not release the turn's lease; it lapses by itself");
  }
}

async function finish(run: TurnSegment, result: TurnResult, text: string): Promise<void> {
  const { turn, repos } = run;
  const { status } = result;
  const usage = totalUsage(run, result.usage);
  // A route that cannot continue ends `interrupted` too: whatever still runs there is cut here.
  if (status === "interrupted") run.tree.interrupt();
  await storeRow(run, {
    role: "assistant",
    content: text,
    status,
    turnId: turn.turnId,
    provider: run.provider,
    model: run.model,
    executionTree: run.tree.snapshot(),
    usage,
  });
  if (status === "stopped") turn.emit({ type: "generation_stopped" });
  if (result.error && (status === "error" || status === "iteration_limit")) {
    const code: ErrorCode = result.error.code;
    turn.emit({ type: "error", code, message: result.error.message });
  }
  await repos.turns.end(turn.userId, turn.turnId, {
    status,
    usage,
    error: result.error?.message ?? result.rowError ?? null,
    endedAt: Date.now(),
  });
  // Who watched this turn watches the queued message's turn that starts next, without asking again.
  const next =
    run.afterTurn !== undefined && (await repos.queuedMessages.count(turn.userId, turn.threadId)) > 0;
  endFrames(run, usage, status, next);
}

/**
 * The frames every turn ends with (usage, idle, the one `done`); the turn leaves the registry, and
 * its watchers leave the thread unless a queued turn follows (`keepWatchers`).
 */
function endFrames(run: TurnSegment, usage: TurnUsage, status: EndedTurnStatus, keepWatchers: boolean): void {
  const { turn } = run;
  const warning = run.spend?.warning();
  turn.emit({ type: "usage", ...usage, ...(warning && { spend_warning: warning }) });
  turn.emit({ type: "agent_state", state: "idle" });
  turn.emit({ type: "chunk", content: "", done: true, parent_id: null, depth: 0 });
  turn.status = status;
  turn.log.release(turn.threadId);
  if (!keepWatchers) turn.log.endSubscriptions(turn.threadId);
  run.registry.finish(turn);
  run.threadStates?.changed({ userId: turn.userId, threadId: turn.threadId, state: "idle" });
  run.observer?.turnEnded(status);
}

/** The usage of every segment of the turn so far plus this one. */
export function totalUsage(run: TurnSegment, usage: TurnUsage): TurnUsage {
  if (!run.usageBefore) return usage;
  const acc = new UsageAccumulator();
  acc.merge(run.usageBefore);
  acc.merge(usage);
  return acc.snapshot();
}

/** Turn usage for a route that counts calls but sees no token counts (cost unknown once anything ran). */
export function countedUsage(
  counts: { llmCalls?: number; toolCalls?: number },
  costKnown: boolean,
): TurnUsage {
  const usage = new UsageAccumulator().snapshot();
  return {
    ...usage,
    llm_calls: counts.llmCalls ?? 0,
    tool_calls: counts.toolCalls ?? 0,
    cost_known: costKnown,
  };
}

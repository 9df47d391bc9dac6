import { type LoopResult, UsageAccumulator } from "@agentwire/agents";
import type { ErrorCode, TurnStatus, TurnUsage } from "@agentwire/protocol";
import type { NewMessage } from "../db/messages-repo.js";
import type { SuspendedTurn } from "./suspended-turn.js";
import type { TurnRun } from "./turn-run.js";

/** How a turn ended, in the agent loop's terms (every route reports its end this way). */
export type TurnResult = Pick<LoopResult, "status" | "usage" | "error">;

/** Stores one row of the thread and sends it as a `message` frame. */
export function storeRow(run: TurnRun, row: NewMessage): void {
  const { turn, repos } = run;
  const message = repos.messages.append(turn.userId, turn.threadId, row);
  turn.emit({ type: "message", message });
}

/** The turn status a loop result ends in; a cancelled turn is `stopped` by the user, else `interrupted`. */
export function turnStatusOf(status: LoopResult["status"], abortReason: unknown): TurnStatus {
  switch (status) {
    case "cancelled":
    case "suspended":
      return abortReason === "stop" ? "stopped" : "interrupted";
    default:
      return status;
  }
}

/**
 * Stores the suspension, then lets the frames that ask the user out: the log held them since the
 * question, so no client sees a question the database cannot answer after a crash.
 */
export function suspendTurn(run: TurnRun, saved: SuspendedTurn): void {
  const { turn, repos } = run;
  turn.status = "waiting_user";
  repos.turns.update(turn.userId, turn.turnId, { status: "waiting_user", suspendedState: saved });
  turn.log.release(turn.threadId);
}

/**
 * Ends a turn on any route: stores the final assistant message (text, tree, usage, status) and the
 * turn row, then sends the frames every turn ends with. Never throws: if the database fails, the
 * client still gets an `internal` error and a clean end.
 */
export function endTurn(run: TurnRun, result: TurnResult, text: string): void {
  try {
    finish(run, result, text);
  } catch (error) {
    run.logger.error({ err: error }, "could not store the end of the turn");
    run.turn.emit({ type: "error", code: "internal", message: "internal error" });
    endFrames(run, totalUsage(run, result.usage), "error");
  }
}

function finish(run: TurnRun, result: TurnResult, text: string): void {
  const { turn, repos } = run;
  const status = turnStatusOf(result.status, turn.abort.signal.reason);
  const usage = totalUsage(run, result.usage);
  storeRow(run, {
    role: "assistant",
    content: text,
    status: status === "running" ? "interrupted" : status,
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
  repos.turns.end(turn.userId, turn.turnId, {
    status,
    usage,
    error: result.error?.message ?? null,
    endedAt: Date.now(),
  });
  endFrames(run, usage, status);
}

/** The frames every turn ends with (usage, idle, the one `done`); the turn leaves the registry. */
function endFrames(run: TurnRun, usage: TurnUsage, status: TurnStatus): void {
  const { turn } = run;
  turn.emit({ type: "usage", ...usage });
  turn.emit({ type: "agent_state", state: "idle" });
  turn.emit({ type: "chunk", content: "", done: true, parent_id: null, depth: 0 });
  turn.status = status;
  turn.log.release(turn.threadId);
  turn.log.endSubscriptions(turn.threadId);
  run.registry.finish(turn);
  run.observer?.turnEnded(status);
}

/** The usage of every segment of the turn so far plus this one. */
export function totalUsage(run: TurnRun, usage: TurnUsage): TurnUsage {
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

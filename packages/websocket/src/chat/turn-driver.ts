import {
  type BudgetLimits,
  type BudgetUsed,
  createLoopContext,
  type ExecutionTreeBuilder,
  type LoopContext,
  type LoopEvent,
  type LoopResult,
  type ModelMessage,
  UsageAccumulator,
} from "@agentwire/agents";
import type { ChatContext, ErrorCode, MessageStatus, TurnUsage } from "@agentwire/protocol";
import type { FastifyBaseLogger } from "fastify";
import type { Repositories } from "../db/repositories.js";
import type { TurnStatus } from "../db/schema/turns.js";
import type { RunningTurn } from "../turns/running-turn.js";
import type { TurnRegistry } from "../turns/turn-registry.js";
import { rootRow } from "./root-row.js";
import type { SavedTurn } from "./saved-turn.js";
import type { TurnObserver } from "./turn-observer.js";

/** Everything one segment of a turn (a fresh start, or a resume after an answer) runs with. */
export type TurnRun = {
  turn: RunningTurn;
  registry: TurnRegistry;
  repos: Repositories;
  logger: FastifyBaseLogger;
  provider: string;
  model: string;
  limits: BudgetLimits;
  tree: ExecutionTreeBuilder;
  chatContext: ChatContext;
  memoryEnabled: boolean;
  /** Usage and budget counters of earlier segments of the same turn. */
  usageBefore?: TurnUsage;
  budgetUsed?: BudgetUsed;
  observer?: TurnObserver | undefined;
};

type LoopStart = (ctx: LoopContext) => AsyncGenerator<LoopEvent, LoopResult>;

/**
 * Runs one segment of a turn: stamps and sends every event, stores root-level rows as they happen and
 * one ledger row per provider call, and at the end stores the final assistant message with its tree,
 * usage and status, then sends `usage` and the one `chunk {done:true}`. Never throws.
 */
export function driveTurn(run: TurnRun, start: LoopStart): Promise<void> {
  const driving = drive(run, start);
  run.turn.driving = driving;
  return driving;
}

async function drive(run: TurnRun, start: LoopStart): Promise<void> {
  const { turn, repos } = run;
  let finalAssistant: Extract<ModelMessage, { role: "assistant" }> | undefined;
  const ctx = createLoopContext(run.limits, {
    ...(run.budgetUsed !== undefined && { used: run.budgetUsed }),
    onLlmCall: (call) => {
      repos.llmCalls.record(turn.userId, turn.threadId, turn.turnId, call);
      run.observer?.llmCall(call);
    },
    onMessage: (message, where) => {
      if (where.depth !== 0) return;
      // The root's last answer is stored at the end, with the tree, usage and status.
      if (message.role === "assistant" && !message.toolCalls?.length) {
        finalAssistant = message;
        return;
      }
      storeRow(run, rootRow(message, turn.turnId, run.provider, run.model));
    },
  });
  let result: LoopResult;
  try {
    const loop = start(ctx);
    for (;;) {
      const next = await loop.next();
      if (next.done) {
        result = next.value;
        break;
      }
      run.tree.add(next.value);
      run.observer?.event(next.value);
      turn.emit(next.value);
      // Every seq sent is recorded at once: after a crash the thread's next turn must not reuse a
      // seq a client already has (clients drop frames whose seq they have seen).
      repos.threads.setLastSeq(turn.userId, turn.threadId, turn.lastSeq);
    }
  } catch (error) {
    run.logger.error({ err: error }, "turn failed");
    const usage = new UsageAccumulator().snapshot();
    result = { status: "error", text: finalAssistant?.text ?? "", messages: [], usage, error: internal };
  }
  try {
    if (result.status === "suspended" && result.pending) suspend(run, result, ctx);
    else finish(run, result, finalAssistant?.text ?? result.text);
  } catch (error) {
    // The database failed while ending the turn: the client still gets a clean end.
    run.logger.error({ err: error }, "could not store the end of the turn");
    turn.emit({ type: "error", code: "internal", message: internal.message });
    endFrames(run, result.usage);
  }
}

const internal = { code: "internal" as const, message: "internal error" };

export function storeRow(run: TurnRun, row: Parameters<Repositories["messages"]["append"]>[2]): void {
  const { turn, repos } = run;
  const message = repos.messages.append(turn.userId, turn.threadId, row);
  turn.emit({ type: "message", message });
  repos.threads.setLastSeq(turn.userId, turn.threadId, turn.lastSeq);
}

function totalUsage(run: TurnRun, usage: TurnUsage): TurnUsage {
  const acc = new UsageAccumulator();
  if (run.usageBefore) acc.merge(run.usageBefore);
  acc.merge(usage);
  return acc.snapshot();
}

function suspend(run: TurnRun, result: LoopResult, ctx: LoopContext): void {
  const { turn, repos } = run;
  const pending = result.pending as NonNullable<LoopResult["pending"]>;
  const saved: SavedTurn = {
    version: 1,
    state: pending,
    tree: run.tree.snapshot(),
    usage: totalUsage(run, result.usage),
    budgetUsed: ctx.budget.used,
    provider: run.provider,
    model: run.model,
    chatContext: run.chatContext,
    memoryEnabled: run.memoryEnabled,
    text: result.text,
  };
  turn.phase = "waiting_on_user";
  repos.turns.update(turn.userId, turn.turnId, {
    status: "waiting_user",
    suspendedState: saved,
    lastSeq: turn.lastSeq,
  });
  repos.threads.setLastSeq(turn.userId, turn.threadId, turn.lastSeq);
}

const statusOf: Record<Exclude<LoopResult["status"], "suspended" | "cancelled">, TurnStatus> = {
  complete: "complete",
  budget_exceeded: "budget_exceeded",
  iteration_limit: "iteration_limit",
  error: "error",
};

/** Stores the final message and ends the turn with the frames every turn ends with. */
export function finish(
  run: TurnRun,
  result: Pick<LoopResult, "status" | "usage" | "error">,
  text: string,
): void {
  const { turn, repos } = run;
  const status: TurnStatus =
    result.status === "cancelled" || result.status === "suspended"
      ? turn.abort.signal.reason === "stop"
        ? "stopped"
        : "interrupted"
      : statusOf[result.status];
  const usage = totalUsage(run, result.usage);
  storeRow(run, {
    role: "assistant",
    content: text,
    status: status as MessageStatus,
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
  repos.turns.update(turn.userId, turn.turnId, {
    status,
    usage,
    error: result.error?.message ?? null,
    suspendedState: null,
    endedAt: Date.now(),
  });
  endFrames(run, usage);
  run.observer?.turnEnded(status);
}

/** The frames every turn ends with (usage, idle, the one `done`); marks the turn finished. */
export function endFrames(run: TurnRun, usage: TurnUsage): void {
  const { turn, repos } = run;
  turn.emit({ type: "usage", ...usage });
  turn.emit({ type: "agent_state", state: "idle" });
  turn.emit({ type: "chunk", content: "", done: true, parent_id: null, depth: 0 });
  repos.turns.update(turn.userId, turn.turnId, { lastSeq: turn.lastSeq });
  repos.threads.setLastSeq(turn.userId, turn.threadId, turn.lastSeq);
  run.registry.finish(turn);
}

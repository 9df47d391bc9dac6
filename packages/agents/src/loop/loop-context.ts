import type { BudgetLimits } from "../budget/budget-limits.js";
import { ParallelPermits } from "../budget/parallel-permits.js";
import { TurnBudget, type TurnBudgetOptions } from "../budget/turn-budget.js";
import type { ModelMessage } from "../providers/model-message.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LlmCallRecord } from "../usage/llm-call-record.js";
import { ExclusiveLocks } from "./exclusive-locks.js";
import type { ToolCrash } from "./tool-crash.js";

/**
 * A consumer that takes events synchronously while nothing is on its way to it (the server's turn
 * driver, parked on the loop's next event with no write pending). Text chunks are offered to it the
 * moment the provider read completes, skipping every generator between the read and the consumer;
 * when `ready()` is false an earlier event is still travelling, so the chunk queues behind it.
 */
export interface DirectSink {
  ready(): boolean;
  deliver(event: LoopEvent): void;
}

/** What the whole turn tree shares: one per root turn. */
export type LoopContext = {
  budget: TurnBudget;
  locks: ExclusiveLocks;
  /** MAX_PARALLEL_PER_TURN across the whole tree: the permits every running tool call takes. */
  permits: ParallelPermits;
  /** The turn's memory handle, opaque to the loop; the server's memory tools close over it. */
  memory?: unknown;
  /** Called once per provider call at any depth, the moment it ends (the `llm_calls` ledger). */
  onLlmCall?: (record: LlmCallRecord) => void;
  /**
   * Called for each message a level adds to its conversation this turn (assistant turns, tool
   * results), at any depth, in order, so the server can persist the root level as the turn goes.
   */
  onMessage?: (message: ModelMessage, where: { depth: number; parentId: string | null }) => void;
  /**
   * Called when a tool throws, at any depth, with what the server logs; the model and clients get
   * only `tool NAME failed (internal error, ref REF)`.
   */
  onToolCrash?: (crash: ToolCrash) => void;
  /** Clock for durations; defaults to `performance.now`. */
  now?: () => number;
  /** Where text chunks go directly when it can take them; absent, every event is yielded. */
  direct?: DirectSink;
  /**
   * The turn's scope guidance (the operator's instructions for its context): the root has it in its
   * own prompt; every subtask, plan step and helper model call (planner, reviewer) gets it too.
   */
  guidance?: string;
  /**
   * Asked before each of the root's model calls after its first: the user messages sent into the
   * running turn since (steering), already stored and announced by the server, which the root adds
   * to its conversation in order before the call.
   */
  steer?: () => Promise<ModelMessage[]>;
};

/** A fresh context for one root turn. */
export function createLoopContext(
  limits: Partial<BudgetLimits> = {},
  options: TurnBudgetOptions & Pick<LoopContext, "memory" | "onLlmCall" | "onMessage"> = {},
): LoopContext {
  const { memory, onLlmCall, onMessage, ...budgetOptions } = options;
  const budget = new TurnBudget(limits, budgetOptions);
  return {
    budget,
    locks: new ExclusiveLocks(),
    permits: new ParallelPermits(budget.limits.MAX_PARALLEL_PER_TURN),
    ...(memory !== undefined && { memory }),
    ...(onLlmCall !== undefined && { onLlmCall }),
    ...(onMessage !== undefined && { onMessage }),
  };
}

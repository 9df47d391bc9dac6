import { TurnStatus, type TurnUsage } from "@agentwire-chat/protocol";
import type { z } from "zod";
import type { BudgetBreach } from "../budget/turn-budget.js";
import type { ModelMessage } from "../providers/model-message.js";
import type { SuspendedState } from "./suspended-state.js";

/**
 * How a level ends, in turn words: `waiting_user` when it suspended (a question or an approval),
 * `stopped` or `interrupted` when its signal fired (see abortedStatus), else how the turn ends.
 */
export const LoopStatus = TurnStatus.exclude(["running"]);
export type LoopStatus = z.infer<typeof LoopStatus>;

/** How one level (and everything below it) ended. */
export type LoopResult = {
  status: LoopStatus;
  /** The level's last assistant text; partial when the level was stopped mid-answer. */
  text: string;
  /** The validated `finish_subtask` result of a subtask with an output schema. */
  structured?: unknown;
  /** The level's whole conversation (history included), unpruned. */
  messages: ModelMessage[];
  /** Usage of this level and every level below it. */
  usage: TurnUsage;
  /** Set when `status` is "waiting_user": the state to resume from (levels from this one down). */
  pending?: SuspendedState;
  /** Set when `status` is "error" or "iteration_limit". */
  error?: { code: "provider_error" | "iteration_limit" | "internal"; message: string };
  /** Set when `status` is "budget_exceeded". */
  budget?: BudgetBreach;
};

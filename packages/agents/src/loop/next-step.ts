import { TurnStatus } from "@agentwire-chat/protocol";
import type { z } from "zod";
import type { ToolCallEvent } from "../providers/provider-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { SuspendedState } from "../turn/suspended-state.js";
import { abortedStatus } from "./aborted-status.js";
import type { Level } from "./level.js";

/** How a level stops early. */
export const StopStatus = TurnStatus.extract([
  "stopped",
  "interrupted",
  "budget_exceeded",
  "iteration_limit",
  "error",
]);
export type StopStatus = z.infer<typeof StopStatus>;

/** The loop's next move; every step returns the next one and the loop switches on it. */
export type NextStep =
  | { type: "call_model" }
  | { type: "run_tools"; calls: ToolCallEvent[] }
  /** A subtask with an output schema answered without finish_subtask: tell it, and call the model again. */
  | { type: "remind_finish" }
  | { type: "final_output"; text: string; structured?: unknown }
  | { type: "suspend"; pending: SuspendedState }
  | { type: "stop"; status: StopStatus; error?: LoopResult["error"] };

/** The step after a model turn without a stop: tools to run, or the level's answer. */
export function afterModelTurn(text: string, toolCalls: ToolCallEvent[], needsFinish: boolean): NextStep {
  if (toolCalls.length > 0) return { type: "run_tools", calls: toolCalls };
  if (needsFinish) return { type: "remind_finish" };
  return { type: "final_output", text };
}

/** Why a level whose signal fired stops: the budget's breach, else its signal's reason (stopped or interrupted). */
export function stopStep(
  level: Pick<Level, "budget" | "signal">,
  breached = level.budget.breach !== null,
): NextStep {
  return { type: "stop", status: breached ? "budget_exceeded" : abortedStatus(level.signal) };
}

/** Fails the build when a switch over NextStep misses a case. */
export function assertNever(step: never): never {
  throw new Error(`unhandled step ${JSON.stringify(step)}`);
}

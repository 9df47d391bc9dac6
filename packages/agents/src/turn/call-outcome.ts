import type { SuspendedState } from "./suspended-state.js";
import type { Suspension } from "./suspension.js";

/** How one tool call ended, before truncation. */
export type CallOutcome =
  | { type: "result"; content: string; isError: boolean }
  /** finish_subtask accepted the result: the level ends with `value`. */
  | { type: "finish"; content: string; value: unknown }
  /** The call waits for the user; `nested` holds the levels below when a subtask asked. */
  | { type: "suspend"; suspension: Suspension; nested: SuspendedState | null };

type ResultOutcome = Extract<CallOutcome, { type: "result" }>;

/** An error result the model sees. */
export const errorOutcome = (content: string): ResultOutcome => ({ type: "result", content, isError: true });

/** The result of a call that the stop of the turn cut short. */
export const stoppedOutcome = (breached: boolean): ResultOutcome =>
  errorOutcome(breached ? "stopped: the turn's budget is exhausted" : "cancelled");

/** `stoppedOutcome`'s texts, and a subtask's when Stop or the budget cut it (`subtaskOutcome`). */
const CUT_SHORT = /^(?:subtask ".*" )?(?:stopped: the turn's budget is exhausted|cancelled)$/s;

/** True for the result of a call that Stop or the budget cut short (not one that failed). */
export function isCutShort(result: unknown): boolean {
  return typeof result === "string" && CUT_SHORT.test(result);
}

/** A tool's output as the text the model reads. */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  try {
    return JSON.stringify(output) ?? "null";
  } catch (error) {
    return `unserialisable tool output: ${error instanceof Error ? error.message : String(error)}`;
  }
}

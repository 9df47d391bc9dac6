import { type CallOutcome, errorOutcome } from "../turn/call-outcome.js";
import type { LoopResult } from "../turn/loop-result.js";

/** What the parent's run_subtask call receives from a finished (or stopped) child level. */
export function subtaskOutcome(result: LoopResult, title: string): CallOutcome {
  switch (result.status) {
    case "complete":
      return result.structured !== undefined
        ? { type: "result", content: JSON.stringify(result.structured), isError: false }
        : { type: "result", content: result.text, isError: false };
    case "waiting_user":
      if (!result.pending) return errorOutcome(`subtask "${title}" suspended without a saved state`);
      return { type: "suspend", suspension: result.pending.suspension, nested: result.pending };
    case "iteration_limit":
      return errorOutcome(
        `subtask "${title}" failed: ${result.error?.message ?? "iteration limit"}${partial(result.text)}`,
      );
    case "error":
      return errorOutcome(`subtask "${title}" failed: ${result.error?.message ?? "unknown error"}`);
    case "budget_exceeded":
      return errorOutcome(`subtask "${title}" stopped: the turn's budget is exhausted`);
    case "stopped":
    case "interrupted":
      return errorOutcome(`subtask "${title}" cancelled`);
  }
}

const partial = (text: string) => (text ? `; its last text: ${text}` : "");

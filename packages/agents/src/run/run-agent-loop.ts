import { assertNever } from "../loop/next-step.js";
import { runLevel } from "../loop/run-level.js";
import { continueCheckpoint } from "../suspend/continue-checkpoint.js";
import { resumeSuspended } from "../suspend/resume-suspended.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { RunAgentLoopParams } from "./loop-from.js";

/**
 * Runs a turn's agent loop from where `from` says: a fresh start, a resume after the user's answer
 * or approval, or a checkpoint (after a crash, or `after: "budget"` to go on past a limit). Yields
 * protocol events; returns how the turn ended. Never throws for a model, tool or provider failure.
 */
export function runAgentLoop(params: RunAgentLoopParams): AsyncGenerator<LoopEvent, LoopResult> {
  const { from, ...common } = params;
  switch (from.kind) {
    case "start": {
      const { kind: _, ...start } = from;
      return runLevel({ ...common, ...start });
    }
    case "suspended": {
      const { kind: _, ...suspended } = from;
      return resumeSuspended({ ...common, ...suspended });
    }
    case "checkpoint": {
      const { kind: _, ...checkpoint } = from;
      return continueCheckpoint({ ...common, ...checkpoint });
    }
    default:
      return assertNever(from);
  }
}

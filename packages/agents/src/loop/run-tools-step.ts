import type { ToolCallEvent } from "../providers/provider-event.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { SuspendedLevel, SuspendedState } from "../turn/suspended-state.js";
import { agentState } from "./agent-state.js";
import { appendNewMessage, type Level } from "./level.js";
import { levelState } from "./level-state.js";
import { type NextStep, stopStep } from "./next-step.js";
import { type BatchOutcome, runToolCalls } from "./run-tool-calls.js";

/** The `run_tools` step: runs the calls, appends their results, and decides what follows. */
export async function* runToolsStep(
  level: Level,
  calls: ToolCallEvent[],
): AsyncGenerator<LoopEvent, NextStep> {
  const executing = agentState(level, "executing", calls);
  if (executing) yield executing;
  const batch = yield* runToolCalls(level, calls);
  if (batch.suspended) return { type: "suspend", pending: suspendedState(level, batch) };
  for (const result of batch.results) appendNewMessage(level, result);
  if (batch.finish) return { type: "final_output", text: level.lastText, structured: batch.finish.value };
  if (level.signal.aborted) return stopStep(level);
  return { type: "call_model" };
}

/** This level's saved state, with the levels below it when a subtask asked. */
function suspendedState(level: Level, batch: BatchOutcome): SuspendedState {
  const suspended = batch.suspended as NonNullable<BatchOutcome["suspended"]>;
  const own: SuspendedLevel = {
    ...levelState(level, batch.results),
    pendingCall: { id: suspended.call.id, name: suspended.call.name },
    ...(batch.deferred !== undefined && { deferred: batch.deferred }),
  };
  const nested = suspended.nested;
  return {
    version: 1,
    model: level.params.model,
    toolCallId: nested?.toolCallId ?? suspended.call.id,
    suspension: suspended.suspension,
    levels: [own, ...(nested?.levels ?? [])],
  };
}

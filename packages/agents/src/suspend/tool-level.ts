import { type CallOutcome, errorOutcome, outputText } from "../loop/call-outcome.js";
import type { ToolOutcome } from "../tools/tool.js";
import type { SuspendedLevel, SuspendedState } from "../turn/suspended-state.js";

/** The level a tool call runs in, as far as its waiting subtask's node needs it. */
type Owner = { depth: number; toolNames: string[] | null };

/**
 * A tool's outcome as the outcome of its call. A tool that suspends with `resume` gets a level of
 * its own in the suspended state (its waiting subtask's node, holding the tool's progress), above
 * the subtask's levels.
 */
export function toolCallOutcome(
  outcome: ToolOutcome,
  owner: Owner,
  call: { name: string; id: string },
): CallOutcome {
  if (outcome.type === "result") {
    return { type: "result", content: outputText(outcome.output), isError: outcome.isError === true };
  }
  if (!outcome.resume) return { type: "suspend", suspension: outcome.suspension, nested: null };
  const { state, pending } = outcome.resume;
  const below = pending.state;
  const level: SuspendedLevel = {
    depth: owner.depth + 1,
    parentId: call.id,
    systemPrompt: "",
    toolNames: owner.toolNames,
    messages: [],
    results: [],
    pendingCall: { id: pending.taskId, name: pending.taskName },
    iterationsUsed: 0,
    maxIterations: 0,
    tool: { name: call.name, callId: call.id, state },
  };
  const nested: SuspendedState = { ...below, levels: [level, ...below.levels] };
  return { type: "suspend", suspension: below.suspension, nested };
}

/** The outcome of a tool that failed by throwing. */
export function toolThrew(name: string, error: unknown): CallOutcome {
  return errorOutcome(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
}

import type { ToolOutcome } from "../tools/tool.js";
import { type CallOutcome, errorOutcome, outputText } from "../turn/call-outcome.js";
import type { SuspendedLevel, SuspendedState } from "../turn/suspended-state.js";
import { crashRef, type ToolCrash } from "./tool-crash.js";

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

/**
 * The outcome of a tool that failed by throwing: reported through `onToolCrash` under a fresh ref, and
 * only its name and that ref go to the model and clients (the thrown text may hold internals or secrets).
 */
export function toolThrew(
  onToolCrash: ((crash: ToolCrash) => void) | undefined,
  call: Omit<ToolCrash, "ref">,
): CallOutcome {
  const ref = crashRef();
  try {
    onToolCrash?.({ ...call, ref });
  } catch {
    // Reporting must never turn a tool's failure into the turn's.
  }
  return errorOutcome(`tool ${call.tool} failed (internal error, ref ${ref})`);
}

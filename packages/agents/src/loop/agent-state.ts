import type { ToolCallEvent } from "../providers/provider-event.js";
import type { AgentStateEvent } from "../turn/loop-event.js";
import type { Level } from "./level.js";

/** Above this many calls at once, `detail` counts them instead of naming each one. */
const MAX_NAMED_CALLS = 3;

/**
 * The `agent_state` event when the root level changes what it does, else undefined (nothing below
 * the root). A plain return, not a generator: `yield*` of a sync generator inside the loop's async
 * ones wraps it in an async-from-sync iterator on every model call and tool batch.
 */
export function agentState(
  level: Level,
  state: AgentStateEvent["state"],
  calls?: readonly ToolCallEvent[],
): AgentStateEvent | undefined {
  if (level.depth !== 0 || level.state === state) return undefined;
  level.state = state;
  return calls === undefined
    ? { type: "agent_state", state }
    : { type: "agent_state", state, detail: executingDetail(calls) };
}

/**
 * What `agent_state executing` says it runs: each call's label (a subtask's title, else the tool's
 * name) in call order, joined with ", "; more than three calls are counted ("5 tools").
 */
function executingDetail(calls: readonly ToolCallEvent[]): string {
  if (calls.length > MAX_NAMED_CALLS) return `${calls.length} tools`;
  return calls.map(callLabel).join(", ");
}

/** A subtask is shown by the title the model gave it, the way clients title its card. */
function callLabel(call: ToolCallEvent): string {
  if (call.name !== "run_subtask") return call.name;
  const title = (call.args as { title?: unknown } | null)?.title;
  return typeof title === "string" && title.trim() !== "" ? title.trim() : call.name;
}

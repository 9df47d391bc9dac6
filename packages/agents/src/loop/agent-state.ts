import type { Level } from "./level.js";
import type { AgentStateEvent } from "./loop-event.js";

/** An `agent_state` event when the root level changes what it does; nothing below the root. */
export function* agentState(level: Level, state: AgentStateEvent["state"]): Generator<AgentStateEvent> {
  if (level.depth !== 0 || level.state === state) return;
  level.state = state;
  yield { type: "agent_state", state };
}

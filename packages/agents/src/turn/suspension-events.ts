import { agentStateOnWire } from "@agentwire-chat/protocol";
import type { LoopEvent } from "./loop-event.js";
import type { SuspendedState } from "./suspended-state.js";

/** The frames that tell the client the turn waits: the question (or approval request), then the state. */
export function* suspensionEvents(state: SuspendedState): Generator<LoopEvent> {
  const s = state.suspension;
  switch (s.kind) {
    case "question":
      yield { type: "question", tool_call_id: state.toolCallId, question: s.question };
      break;
    case "approval":
      yield {
        type: "tool_approval_request",
        approval_id: s.approvalId,
        tool_name: s.toolName,
        permission_class: s.permissionClass,
        args: s.args,
      };
      break;
  }
  yield { type: "agent_state", state: agentStateOnWire("waiting_user") };
}

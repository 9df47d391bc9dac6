import type { ServerFrameOf, UnstampedFrame } from "@agentwire/protocol";

export type ChunkEvent = UnstampedFrame<ServerFrameOf<"chunk">>;
export type ToolCallUpdateEvent = UnstampedFrame<ServerFrameOf<"tool_call_update">>;
export type AgentStateEvent = UnstampedFrame<ServerFrameOf<"agent_state">>;
export type BudgetExceededEvent = UnstampedFrame<ServerFrameOf<"budget_exceeded">>;
export type QuestionEvent = UnstampedFrame<ServerFrameOf<"question">>;
export type ToolApprovalRequestEvent = UnstampedFrame<ServerFrameOf<"tool_approval_request">>;

/**
 * What the loop yields: protocol frames without the registry's stamp (`seq`, `thread_id`). Chunks
 * and tool updates carry `parent_id`/`depth`; the others are turn-wide (the protocol gives them no
 * nesting). `agent_state`, `question` and `tool_approval_request` come from depth 0 only.
 */
export type LoopEvent =
  | ChunkEvent
  | ToolCallUpdateEvent
  | AgentStateEvent
  | BudgetExceededEvent
  | QuestionEvent
  | ToolApprovalRequestEvent;

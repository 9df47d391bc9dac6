import type { ServerFrameOf, UnstampedFrame } from "@agentwire-chat/protocol";
import type { CheckpointEvent } from "./checkpoint.js";

export type ChunkEvent = UnstampedFrame<ServerFrameOf<"chunk">>;
export type ToolCallUpdateEvent = UnstampedFrame<ServerFrameOf<"tool_call_update">>;
export type AgentStateEvent = UnstampedFrame<ServerFrameOf<"agent_state">>;
export type BudgetExceededEvent = UnstampedFrame<ServerFrameOf<"budget_exceeded">>;
export type QuestionEvent = UnstampedFrame<ServerFrameOf<"question">>;
export type ToolApprovalRequestEvent = UnstampedFrame<ServerFrameOf<"tool_approval_request">>;
export type ContextUsageEvent = UnstampedFrame<ServerFrameOf<"context_usage">>;
export type ScratchpadPatchEvent = UnstampedFrame<ServerFrameOf<"scratchpad_patch">>;
export type PlanCreatedEvent = UnstampedFrame<ServerFrameOf<"plan_created">>;
export type PlanReadyForReviewEvent = UnstampedFrame<ServerFrameOf<"plan_ready_for_review">>;
export type PlanReviewEvent = UnstampedFrame<ServerFrameOf<"plan_review">>;
export type ProgressUpdateEvent = UnstampedFrame<ServerFrameOf<"progress_update">>;

/**
 * What the loop yields: protocol frames without the registry's stamp (`seq`, `thread_id`). Chunks
 * and tool updates carry `parent_id`/`depth` (and so do progress updates); the others are turn-wide (the
 * protocol gives them no nesting). `agent_state`, `question`, `tool_approval_request` and
 * `context_usage` come from depth 0 only. Tools emit theirs through `ToolContext.emit`. A `checkpoint`
 * (from the root only) is no frame: the turn driver stores it and sends nothing.
 */
export type LoopEvent =
  | ChunkEvent
  | ToolCallUpdateEvent
  | AgentStateEvent
  | BudgetExceededEvent
  | QuestionEvent
  | ToolApprovalRequestEvent
  | ContextUsageEvent
  | ScratchpadPatchEvent
  | PlanCreatedEvent
  | PlanReadyForReviewEvent
  | PlanReviewEvent
  | ProgressUpdateEvent
  | CheckpointEvent;

import { z } from "zod";
import { ErrorCode } from "./error-codes.js";
import { QueuedMode, StoredMessage, ThreadLiveState } from "./message.js";
import { Plan, PlanExecutionMode } from "./plan.js";
import { ScratchpadItem } from "./scratchpad.js";
import { TurnUsage } from "./usage.js";

/** Fields every frame of a turn carries; stamped by the server's turn registry, not by the agent loop. */
const turnFields = {
  thread_id: z.string().optional(),
  seq: z.number().int().positive().optional(),
};
/** Nesting fields: `parent_id` is the enclosing run_subtask call (null at the root). */
const nesting = { parent_id: z.string().nullable(), depth: z.number().int().min(0) };

/** The `request_id` of the chat_message that started the turn, on its first frames (when it had one). */
const echoedRequest = { request_id: z.string().optional() };

export const ThreadFrame = z.object({
  type: z.literal("thread"),
  title: z.string(),
  ...echoedRequest,
  ...turnFields,
});
/** A stored row; the turn's user message carries its chat_message's `request_id`. */
export const MessageFrame = z.object({
  type: z.literal("message"),
  message: StoredMessage,
  /**
   * Only on a user message that steered the running turn: sent when it joined the root's conversation,
   * just before the model call that receives it.
   */
  steered: z.literal(true).optional(),
  ...echoedRequest,
  ...turnFields,
});
/**
 * A turn's first frame after its user message: which user message it answers (a regenerate stores no
 * new user message, so this is how its frames name the message they answer).
 */
export const TurnStartedFrame = z.object({
  type: z.literal("turn_started"),
  turn_id: z.string(),
  user_message_id: z.string(),
  ...turnFields,
});
/**
 * A `chat_message` sent while a turn ran was stored as queued (see `on_busy`); sent to the socket that
 * sent it, with its `request_id`. Not a turn frame: no `seq`, never replayed.
 */
export const MessageQueuedFrame = z.object({
  type: z.literal("message_queued"),
  thread_id: z.string(),
  message_id: z.string(),
  mode: QueuedMode,
  /** 1 for the next to start. */
  position: z.number().int().min(1),
  ...echoedRequest,
});
/** `cancel_queued` removed the message; sent to the socket that asked. Not a turn frame. */
export const QueuedMessageCancelledFrame = z.object({
  type: z.literal("queued_message_cancelled"),
  thread_id: z.string(),
  message_id: z.string(),
  ...echoedRequest,
});
export const ChunkFrame = z.object({
  type: z.literal("chunk"),
  content: z.string(),
  done: z.boolean().optional(),
  thinking: z.boolean().optional(),
  ...nesting,
  ...turnFields,
  /**
   * Only on merged text: a socket that fell behind gets consecutive deltas of one node as one chunk,
   * standing for the frames `seq_start`..`seq` (their contents concatenated, in order).
   */
  seq_start: z.number().int().positive().optional(),
});
export const ToolCallUpdateFrame = z.object({
  type: z.literal("tool_call_update"),
  tool_call_id: z.string(),
  name: z.string(),
  status: z.enum(["start", "end"]),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  is_error: z.boolean().optional(),
  duration_ms: z.number().nonnegative().optional(),
  /** run_subtask's title, so clients can label a container card before it ends. */
  title: z.string().optional(),
  /**
   * Only on a `start` of a subtask that already started: the server restarted while it ran, and the
   * subtask goes on as this attempt (2, 3…). What it streamed since its last nested call was cut.
   */
  attempt: z.number().int().min(2).optional(),
  ...nesting,
  ...turnFields,
});
/** `spend_limit`: the user's daily or the thread's spend limit (USD) was reached while the turn ran. */
export const BudgetReason = z.enum([
  "subtasks",
  "llm_calls",
  "tool_calls",
  "wall_clock",
  "tokens",
  "bytes",
  "spend_limit",
]);
export type BudgetReason = z.infer<typeof BudgetReason>;
export const BudgetExceededFrame = z.object({
  type: z.literal("budget_exceeded"),
  reason: BudgetReason,
  limit: z.number(),
  observed: z.number(),
  ...turnFields,
});
/** `resumed`: the turn continues after the server restarted (see docs/protocol.md, A crashed turn). */
export const AgentStateName = z.enum([
  "queued",
  "thinking",
  "executing",
  "waiting_on_user",
  "idle",
  "resumed",
]);
export type AgentStateName = z.infer<typeof AgentStateName>;
export const AgentStateFrame = z.object({
  type: z.literal("agent_state"),
  state: AgentStateName,
  detail: z.string().optional(),
  ...turnFields,
});
export const QuestionFrame = z.object({
  type: z.literal("question"),
  tool_call_id: z.string(),
  question: z.string(),
  ...turnFields,
});
export const ToolApprovalRequestFrame = z.object({
  type: z.literal("tool_approval_request"),
  approval_id: z.string(),
  tool_name: z.string(),
  permission_class: z.string(),
  args: z.unknown(),
  ...turnFields,
});
export const ToolCallFrame = z.object({
  type: z.literal("tool_call"),
  tool_call_id: z.string(),
  name: z.string(),
  args: z.unknown(),
  ...turnFields,
});
/** Which spend limit a warning or a refusal is about: the user's per UTC day, or the thread's. */
export const SpendLimitKind = z.enum(["user_daily", "thread"]);
export type SpendLimitKind = z.infer<typeof SpendLimitKind>;
/** On a turn's `usage` when a spend limit is 80 % used or more: what clients show the user. */
export const SpendWarning = z.object({
  limit: SpendLimitKind,
  limit_usd: z.number().nonnegative(),
  spent_usd: z.number().nonnegative(),
  /** When the limit starts again (ms since the epoch, next UTC midnight); null for a thread's limit. */
  resets_at: z.number().int().nullable(),
});
export type SpendWarning = z.infer<typeof SpendWarning>;
export const UsageFrame = TurnUsage.extend({
  type: z.literal("usage"),
  spend_warning: SpendWarning.optional(),
  ...turnFields,
});
export const GenerationStoppedFrame = z.object({ type: z.literal("generation_stopped"), ...turnFields });
export const ChatResumedFrame = z.object({
  type: z.literal("chat_resumed"),
  status: z.enum(["running", "waiting_on_user", "finished", "interrupted", "unknown"]),
  last_seq: z.number().int().min(0),
  replayed: z.number().int().min(0),
  thread_id: z.string(),
});
export const ErrorFrame = z.object({
  type: z.literal("error"),
  code: ErrorCode,
  message: z.string(),
  request_id: z.string().optional(),
  ...turnFields,
});
/** A saved workflow's run (the workflow route) as a whole. */
export const JobUpdateFrame = z.object({
  type: z.literal("job_update"),
  job_id: z.string(),
  workflow_id: z.string().optional(),
  status: z.enum(["running", "completed", "failed", "cancelled"]),
  error: z.string().optional(),
  ...turnFields,
});
/** One node of a running workflow. */
export const NodeUpdateFrame = z.object({
  type: z.literal("node_update"),
  job_id: z.string().optional(),
  node_id: z.string(),
  node_type: z.string().optional(),
  status: z.enum(["running", "completed", "failed", "skipped", "cancelled"]),
  result_preview: z.string().optional(),
  error: z.string().optional(),
  ...turnFields,
});
/**
 * Before each model call of the turn's root level: what its context holds, in estimated tokens, against
 * the context budget, and how many of the thread's older messages the rolling summary stands for.
 */
export const ContextUsageFrame = z.object({
  type: z.literal("context_usage"),
  tokens: z.number().int().min(0),
  budget: z.number().int().min(0),
  summary_tokens: z.number().int().min(0),
  scratchpad_tokens: z.number().int().min(0),
  history_tokens: z.number().int().min(0),
  messages_summarized: z.number().int().min(0),
  messages_verbatim: z.number().int().min(0),
  /** History messages the call leaves out: neither sent nor in the summary it is given (absent from older servers: 0). */
  messages_dropped: z.number().int().min(0).optional(),
  ...turnFields,
});
/**
 * Scratchpad items that were added or changed, each whole; a client replaces its copy by `id`. With
 * `cleared` the user cleared the scratchpad: drop every item first (`items` is then empty).
 */
export const ScratchpadPatchFrame = z.object({
  type: z.literal("scratchpad_patch"),
  items: z.array(ScratchpadItem),
  cleared: z.literal(true).optional(),
  ...turnFields,
});
/** create_plan's planner produced a plan; `tool_call_id` is the create_plan call its steps nest under. */
export const PlanCreatedFrame = z.object({
  type: z.literal("plan_created"),
  tool_call_id: z.string(),
  execution_mode: PlanExecutionMode,
  plan: Plan,
  ...turnFields,
});
/** A draft plan waits for the user's `plan_decision`. */
export const PlanReadyForReviewFrame = z.object({
  type: z.literal("plan_ready_for_review"),
  tool_call_id: z.string(),
  plan: Plan,
  ...turnFields,
});
/** The reviewer call's verdict on a plan (agent_review mode); `round` counts from 1. */
export const PlanReviewFrame = z.object({
  type: z.literal("plan_review"),
  tool_call_id: z.string(),
  plan_id: z.string(),
  verdict: z.enum(["approve", "reject"]),
  notes: z.string(),
  round: z.number().int().positive(),
  ...turnFields,
});
/** A progress message from the agent (send_update) while the turn goes on. */
export const ProgressUpdateFrame = z.object({
  type: z.literal("progress_update"),
  tool_call_id: z.string(),
  message: z.string(),
  ...nesting,
  ...turnFields,
});
/**
 * A thread of the user's changed its live state; sent to sockets that sent `subscribe_threads`. Not a
 * turn frame: no `seq`, never replayed.
 */
export const ThreadStateFrame = z.object({
  type: z.literal("thread_state"),
  thread_id: z.string(),
  state: ThreadLiveState,
  question: z.string().optional(),
  /** A running turn's latest `send_update` message (sent again with each new one). */
  progress: z.string().optional(),
});
/** A saved workflow as `workflow_updated` carries it (the HTTP API's record without `created_at`). */
export const SavedWorkflow = z.object({
  id: z.string(),
  name: z.string(),
  graph: z.record(z.string(), z.unknown()),
  /** ISO 8601. */
  updated_at: z.string(),
});
export type SavedWorkflow = z.infer<typeof SavedWorkflow>;
/**
 * A workflow was saved (build_workflow, its approval, `PUT /api/workflows/:id`); sent to each socket of
 * its user whose editor context has it open. Not a turn frame: no `seq`, never replayed.
 */
export const WorkflowUpdatedFrame = z.object({
  type: z.literal("workflow_updated"),
  workflow: SavedWorkflow,
});
export const PongFrame = z.object({ type: z.literal("pong"), request_id: z.string().optional() });

/** Every frame the server may send. */
export const ServerFrame = z.discriminatedUnion("type", [
  ThreadFrame,
  MessageFrame,
  ChunkFrame,
  ToolCallUpdateFrame,
  BudgetExceededFrame,
  AgentStateFrame,
  QuestionFrame,
  ToolApprovalRequestFrame,
  ToolCallFrame,
  UsageFrame,
  GenerationStoppedFrame,
  ChatResumedFrame,
  ErrorFrame,
  JobUpdateFrame,
  NodeUpdateFrame,
  ContextUsageFrame,
  ScratchpadPatchFrame,
  PlanCreatedFrame,
  PlanReadyForReviewFrame,
  PlanReviewFrame,
  ProgressUpdateFrame,
  ThreadStateFrame,
  WorkflowUpdatedFrame,
  PongFrame,
  TurnStartedFrame,
  MessageQueuedFrame,
  QueuedMessageCancelledFrame,
]);
export type ServerFrame = z.infer<typeof ServerFrame>;
export type ServerFrameType = ServerFrame["type"];
/** One server frame by its type, e.g. `ServerFrameOf<"chunk">`. */
export type ServerFrameOf<T extends ServerFrameType> = Extract<ServerFrame, { type: T }>;

export type ThreadFrame = z.infer<typeof ThreadFrame>;
export type MessageFrame = z.infer<typeof MessageFrame>;
export type ChunkFrame = z.infer<typeof ChunkFrame>;
export type ToolCallUpdateFrame = z.infer<typeof ToolCallUpdateFrame>;
export type BudgetExceededFrame = z.infer<typeof BudgetExceededFrame>;
export type AgentStateFrame = z.infer<typeof AgentStateFrame>;
export type QuestionFrame = z.infer<typeof QuestionFrame>;
export type UsageFrame = z.infer<typeof UsageFrame>;
export type ErrorFrame = z.infer<typeof ErrorFrame>;
export type JobUpdateFrame = z.infer<typeof JobUpdateFrame>;
export type NodeUpdateFrame = z.infer<typeof NodeUpdateFrame>;
export type ChatResumedFrame = z.infer<typeof ChatResumedFrame>;
export type ContextUsageFrame = z.infer<typeof ContextUsageFrame>;
export type ScratchpadPatchFrame = z.infer<typeof ScratchpadPatchFrame>;
export type PlanCreatedFrame = z.infer<typeof PlanCreatedFrame>;
export type PlanReadyForReviewFrame = z.infer<typeof PlanReadyForReviewFrame>;
export type PlanReviewFrame = z.infer<typeof PlanReviewFrame>;
export type ProgressUpdateFrame = z.infer<typeof ProgressUpdateFrame>;
export type ThreadStateFrame = z.infer<typeof ThreadStateFrame>;
export type WorkflowUpdatedFrame = z.infer<typeof WorkflowUpdatedFrame>;
export type TurnStartedFrame = z.infer<typeof TurnStartedFrame>;
export type MessageQueuedFrame = z.infer<typeof MessageQueuedFrame>;
export type QueuedMessageCancelledFrame = z.infer<typeof QueuedMessageCancelledFrame>;

/** A frame without the registry's stamp: what the agent loop and handlers produce. */
export type UnstampedFrame<F extends ServerFrame = ServerFrame> = F extends unknown
  ? Omit<F, "seq" | "thread_id">
  : never;

/** A frame of a turn as sent: stamped with its thread and per-thread sequence number. */
export type StampedFrame = ServerFrame & { thread_id: string; seq: number };

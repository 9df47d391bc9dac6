export { AgentState } from "./agent-state.js";
export { AgentwireError, NotFoundError, toAgentwireError } from "./agentwire-error.js";
export {
  AnswerData,
  AnswerFrame,
  CancelQueuedData,
  CancelQueuedFrame,
  ChatContext,
  ChatMessageData,
  ChatMessageFrame,
  type ClientCommandName,
  ClientFrame,
  type ClientFrameOf,
  ClientToolSpec,
  ClientToolsManifestData,
  ClientToolsManifestFrame,
  CONTEXT_KIND,
  ContinueTurnData,
  ContinueTurnFrame,
  clientCommandData,
  clientCommandNames,
  MediaGeneration,
  OnBusy,
  PingData,
  PingFrame,
  PlanDecisionData,
  PlanDecisionFrame,
  RegenerateData,
  RegenerateFrame,
  ResumeChatData,
  ResumeChatFrame,
  StopData,
  StopFrame,
  SubscribeThreadsData,
  SubscribeThreadsFrame,
  ToolApprovalResponseData,
  ToolApprovalResponseFrame,
  ToolResultData,
  ToolResultFrame,
} from "./client-commands.js";
export { ContentPart, contentText, ImagePart, isBlankContent, MessageContent, TextPart } from "./content.js";
export { ErrorCode } from "./error-codes.js";
export { CutAttempt, ExecutionTreeNode, ExecutionTreeSnapshot } from "./execution-tree.js";
export { findTooDeep, MAX_JSON_DEPTH } from "./json-depth.js";
export { contractJsonSchema } from "./json-schema.js";
export { LlmOperation } from "./llm-operation.js";
export { McpServerState, McpServerStatus, McpServersStatus } from "./mcp-server-status.js";
export { MemoryEntry } from "./memory-entry.js";
export {
  MessageRole,
  MessageStatus,
  QueuedMessage,
  QueuedMode,
  StoredMessage,
  StoredToolCall,
  ThreadLiveState,
  ThreadSummary,
} from "./message.js";
export { describeIssue, type ParseError, type ParseResult, parseClientFrame } from "./parse-client-frame.js";
export { Plan, PlanExecutionMode, PlanStage, PlanStatus, PlanStep, StoredPlan } from "./plan.js";
export { PREVIEW_MAX_CHARS, preview } from "./preview.js";
export { isPrintable, printable, stripControl } from "./printable.js";
export { RESTART_DETAIL } from "./restart-detail.js";
export {
  ScratchpadEdit,
  ScratchpadItem,
  ScratchpadKind,
  ScratchpadOp,
  ScratchpadStatus,
} from "./scratchpad.js";
export {
  AgentStateFrame,
  AgentStateName,
  BudgetExceededFrame,
  BudgetReason,
  ChatResumedFrame,
  ChunkFrame,
  ContextUsageFrame,
  ErrorFrame,
  GenerationStoppedFrame,
  JobUpdateFrame,
  MessageFrame,
  MessageQueuedFrame,
  NodeUpdateFrame,
  PlanCreatedFrame,
  PlanReadyForReviewFrame,
  PlanReviewFrame,
  PongFrame,
  ProgressUpdateFrame,
  QuestionFrame,
  QueuedMessageCancelledFrame,
  SavedWorkflow,
  ScratchpadPatchFrame,
  ServerFrame,
  type ServerFrameOf,
  type ServerFrameType,
  SpendLimitKind,
  SpendWarning,
  type StampedFrame,
  ThreadFrame,
  ThreadStateFrame,
  ToolApprovalRequestFrame,
  ToolCallFrame,
  ToolCallUpdateFrame,
  TurnStartedFrame,
  type UnstampedFrame,
  UsageFrame,
  WorkflowUpdatedFrame,
} from "./server-frames.js";
export { BEARER_PROTOCOL_PREFIX, PROTOCOL_V1, PROTOCOL_V1_NESTED } from "./subprotocols.js";
export { NodeCost, OperationCost, ThreadUsage, TurnCost } from "./thread-usage.js";
export { ActiveTurnStatus, EndedTurnStatus, NodeStatus, ThreadTurnState, TurnStatus } from "./turn-status.js";
export {
  agentStateFromWire,
  agentStateOnWire,
  chatResumedStatusFromWire,
  chatResumedStatusOnWire,
  jobStatusFromWire,
  jobStatusOnWire,
  nodeStatusFromWire,
  nodeStatusOnWire,
  type ThreadListing,
  threadListingFromWire,
  threadLiveStateFromWire,
  threadLiveStateOnWire,
} from "./turn-status-on-wire.js";
export { TurnUsage } from "./usage.js";

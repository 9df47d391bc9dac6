export { BudgetLimits, defaultBudgetLimits } from "./budget/budget-limits.js";
export type { BudgetUsed, SpendAllowance, TurnBudgetOptions } from "./budget/turn-budget.js";
export {
  type AssembledContext,
  assembleContext,
  type CompressionJob,
  type ContextEntry,
  type ContextReport,
  ContextSettings,
  contextReport,
  joinSideWork,
  MAX_SUMMARY_CHARS,
  openSideChannel,
  parseSummarizerOutput,
  pinnedDocuments,
  type SideBuffer,
  type SideChannel,
  SUMMARIZER_SYSTEM_PROMPT,
  summarizeHistory,
  verbatimStart,
} from "./context/index.js";
export {
  type AbortReason,
  abortedStatus,
  abortTurn,
  HANDOVER,
  LEASE_LOST,
  LEVEL_ENDED,
  SHUTDOWN,
  USER_STOP,
} from "./loop/aborted-status.js";
export { drainLoop } from "./loop/drain-loop.js";
export type { LoopCommon } from "./loop/loop-common.js";
export { createLoopContext, type LoopContext } from "./loop/loop-context.js";
export { estimateTextTokens, estimateTokens, pruneHistory } from "./loop/prune-history.js";
export type { RunLoopParams } from "./loop/run-loop-params.js";
export type { StartFrom } from "./loop/start-from.js";
export type { ToolCrash } from "./loop/tool-crash.js";
export {
  createOpenAIMediaGenerator,
  generateMedia,
  type MediaAsset,
  type MediaGenerator,
  MediaOptions,
  type MediaOutcome,
  parseMediaOptions,
} from "./media/index.js";
export { CREATE_PLAN, createPlanTool } from "./plan/create-plan-tool.js";
export type { PlanStore } from "./plan/plan-store.js";
export { PlanResumeState } from "./plan/plan-suspension.js";
export { runApprovedPlan } from "./plan/run-approved-plan.js";
export { agentSystemPrompt } from "./prompts/agent-system-prompt.js";
export {
  type CallSettings,
  CompatEndpointsSchema,
  createProviderRegistry,
  type ModelDefaults,
  ModelSettings,
  OpenAIApi,
  type ProviderListEntry,
  type ProviderRegistry,
  providerRegistryConfigFromEnv,
  ReasoningEffort,
} from "./providers/index.js";
export type {
  AssistantModelMessage,
  ModelMessage,
  ResponsesReasoning,
  ThinkingBlock,
  ToolModelMessage,
} from "./providers/model-message.js";
export type { Provider } from "./providers/provider.js";
export type { ProviderErrorInfo, ProviderEvent } from "./providers/provider-event.js";
export type { ProviderRequest, ToolSpec } from "./providers/provider-request.js";
export type { LoopFrom, RunAgentLoopParams } from "./run/loop-from.js";
export { runAgentLoop } from "./run/run-agent-loop.js";
export { applyScratchpadOps } from "./scratchpad/apply-scratchpad-ops.js";
export { editScratchpadItem } from "./scratchpad/edit-scratchpad-item.js";
export { renderScratchpad } from "./scratchpad/render-scratchpad.js";
export { ScratchpadOpError } from "./scratchpad/scratchpad-store.js";
export { createScratchpadUpdateTool, SCRATCHPAD_UPDATE } from "./scratchpad/scratchpad-update-tool.js";
export { FINISH_SUBTASK } from "./subtask/finish-subtask-tool.js";
export { RUN_SUBTASK, runSubtaskTool } from "./subtask/run-subtask-tool.js";
export { type CheckpointFrom, isIdempotent, RESTARTED } from "./suspend/continue-checkpoint.js";
export { type RestartingSubtask, restartingSubtasks } from "./suspend/restarting-subtasks.js";
export type { ResumeAnswer, SuspendedFrom } from "./suspend/resume-params.js";
export { askUserTool } from "./tools/ask-user-tool.js";
export {
  createMemoryTools,
  createWebFetchTool,
  createWebSearchTool,
  createWorkspaceTools,
  DEFAULT_MCP_RETRY,
  InMemoryPinStore,
  JsonFilePinStore,
  loadMcpServersConfig,
  McpManager,
  type McpRetry,
  type MemoryLimits,
  type MemoryStore,
  parseMcpServersConfig,
  searchBackendNames,
  userDirName,
  WEB_SEARCH,
  type WebFetchOptions,
  WebSearchBackendConfig,
  type WebSearchOptions,
  type WorkspaceLimits,
} from "./tools/builtin/index.js";
export { createAjv } from "./tools/create-ajv.js";
export { defineTool, ok } from "./tools/define-tool.js";
export { sendUpdateTool } from "./tools/send-update-tool.js";
export type { Tool, ToolContext, ToolOutcome } from "./tools/tool.js";
export { truncateResult } from "./tools/truncate-result.js";
export { buildExecutionTree, ExecutionTreeBuilder } from "./tree/execution-tree-builder.js";
export { waitingCalls } from "./turn/ask-deferred.js";
export type { Checkpoint, CheckpointEvent, CheckpointLevel } from "./turn/checkpoint.js";
export { CheckpointTree, openCalls } from "./turn/checkpoint-tree.js";
export { withFreshIterations } from "./turn/fresh-iterations.js";
export type { LoopEvent, ToolCallUpdateEvent } from "./turn/loop-event.js";
export type { LoopResult } from "./turn/loop-result.js";
export { type PermissionClass, permissionClasses } from "./turn/permission-class.js";
export type { SuspendedState } from "./turn/suspended-state.js";
export { buildLlmCallRecord, type LlmCallRecord } from "./usage/llm-call-record.js";
export { priceOf } from "./usage/prices.js";
export { UsageAccumulator } from "./usage/usage-accumulator.js";
export {
  BUILD_WORKFLOW,
  createBuildWorkflowTool,
  createDefaultNodeRegistry,
  DESCRIBE_MAX_NODES,
  describeWorkflow,
  formatIssues,
  loadNodePlugin,
  NodeRegistry,
  runWorkflow,
  validateWorkflow,
  type WorkflowFrame,
  WorkflowGraph,
  WorkflowIssue,
  type WorkflowRunInput,
} from "./workflows/index.js";

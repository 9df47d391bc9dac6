/**
 * The OpenTelemetry GenAI semantic-convention keys and values the turn traces use. Copied rather
 * than imported: the GenAI conventions are still "incubating", which the semconv package advises
 * against depending on at run time.
 */
export const GenAi = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  /** The older name of `gen_ai.provider.name`, still the one many backends group by. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
} as const;

/** `gen_ai.operation.name` values. */
export const GenAiOperation = {
  chat: "chat",
  executeTool: "execute_tool",
  invokeAgent: "invoke_agent",
} as const;

/** agentwire's own span attributes: the turn's identity and where a span sits in the execution tree. */
export const AgentwireAttr = {
  threadId: "agentwire.thread_id",
  turnId: "agentwire.turn_id",
  depth: "agentwire.depth",
  /** The id of the run_subtask call a node runs under (the execution tree's `parent_id`). */
  parentId: "agentwire.parent_id",
  turnStatus: "agentwire.turn.status",
  resumed: "agentwire.turn.resumed",
  costUsd: "agentwire.cost_usd",
  /** What a model call was for (LlmOperation: turn, subtask, plan_step, planner, plan_review…), as in the ledger. */
  operation: "agentwire.operation",
  /** A span closed because its segment suspended or ended before the call finished. */
  unfinished: "agentwire.unfinished",
} as const;

// The server's public surface: createServer and its options, the services an app builds at start-up
// (chat, tools, admission, metrics, tracing), and the interfaces a coordinator (@agentwire-chat/cluster)
// fills in for several instances.
export { generateApiToken, hashApiToken } from "./auth/api-token.js";
export { isLoopbackHost, parseHost } from "./auth/host-allowlist.js";
export { type AuthSettings, createUserResolver, type StaticToken } from "./auth/resolve-user.js";
export {
  type BusySettings,
  type ChatServices,
  ContextScopes,
  createChatServices,
  loadThreadContext,
  ModelSettingsTable,
  parseContextScopes,
  parseModelSettingsTable,
  recoverTurn,
  startAllQueued,
  startQueued,
} from "./chat/index.js";
export type { ThreadStateRelay } from "./chat/thread-states/thread-states.js";
export type { AgentwireServices } from "./commands/agentwire-services.js";
export type { ReadinessChecks } from "./http/health-routes.js";
export { createLogger } from "./logging/create-logger.js";
export { redactUrl } from "./logging/redact-url.js";
export {
  AgentwireMetrics,
  type McpStatusRouteOptions,
  type MetricsAccess,
  type MetricsSources,
  mcpStatusRoute,
  metricsRoute,
  metricsTokenAccess,
  registerFrameLogMetrics,
  registerMcpMetrics,
} from "./metrics/index.js";
export { type AgentwireServer, type CreateServerOptions, createServer } from "./server/create-server.js";
export {
  type BuiltinServerToolsOptions,
  createBuiltinServerTools,
  mcpPinsPath,
  parseToolPolicyFile,
  RepoMemoryStore,
  resolveToolPolicy,
  ruleFor,
  serverToolNames,
  ToolPolicies,
  ToolPolicyConfig,
  ToolPolicyFile,
  type ToolScope,
  UIToolProxy,
} from "./tools/index.js";
export type { ToolCallRouting } from "./tools/tool-call-routing.js";
export { createTurnTracer } from "./tracing/index.js";
export {
  ActiveTurn,
  AdmissionLimits,
  type AdmissionObserver,
  AdmissionQueue,
  type AdmissionRejection,
  AdmissionTicket,
  admissionDefaults,
  endLostTurn,
  nextUtcMidnight,
  type RecoverTurn,
  type RecoveryCause,
  type RunningAdmission,
  recoverOrEndTurn,
  recoverTurns,
  type SpendLimitSettings,
  startAdmission,
  type TurnObserver,
  TurnRegistry,
  turnObserverOf,
  watchEventLoopLag,
} from "./turns/index.js";
export type { TurnCoordination } from "./turns/turn-coordination.js";
export {
  createEditorTools,
  OpenWorkflows,
  type WorkflowSaved,
  type WorkflowUpdateRelay,
} from "./workflows/index.js";
export type { CommandHandlers } from "./ws/command-router.js";
export { Connection, type SocketLike } from "./ws/connection.js";
export type { ConnectionQuota } from "./ws/connection-quota.js";
export { RateLimiter } from "./ws/rate-limiter.js";
export type { ServerLimitsInput } from "./ws/server-limits.js";
export type { ServerSettings } from "./ws/server-settings.js";
export type { UserRateLimit } from "./ws/user-rate-limit.js";

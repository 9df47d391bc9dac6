// Instances of one server sharing turns through Redis: the shared frame log, turn leases, the command
// bus between instances, per-user caps and rates counted across them, thread live states and workflow
// saves relayed. The only package that holds a Redis driver. The frame log implements storage's
// FrameLog; the other parts have the shape of @agentwire-chat/websocket's interfaces (TurnCoordination,
// ConnectionQuota, UserRateLimit, ToolCallRouting, ThreadStateRelay, WorkflowUpdateRelay) without
// importing them, since websocket sits above: the server is handed them where it is put together
// (apps/server), and the compiler checks the fit there.

export { RedisConnectionQuota, type RedisConnectionQuotaOptions } from "./redis-connection-quota.js";
export { RedisFrameLog, type RedisFrameLogOptions } from "./redis-frame-log.js";
export {
  RedisThreadStateRelay,
  type RedisThreadStateRelayOptions,
  type ThreadStateChange,
} from "./redis-thread-state-relay.js";
export {
  type ClientToolResult,
  RedisToolCallRouting,
  type RedisToolCallRoutingOptions,
  type RoutedToolCall,
  type RoutedToolProxy,
} from "./redis-tool-call-routing.js";
export {
  RedisUserRateLimit,
  type RedisUserRateLimitOptions,
  type UserRate,
} from "./redis-user-rate-limit.js";
export {
  RedisWorkflowUpdateRelay,
  type RedisWorkflowUpdateRelayOptions,
  type WorkflowSaved,
} from "./redis-workflow-update-relay.js";
export {
  type Cluster,
  type ClusterOptions,
  type ClusterServeOptions,
  type ClusterStats,
  type LocalTurn,
  startCluster,
} from "./start-cluster.js";
export { TurnLeases, type TurnLeasesOptions, type TurnOwner } from "./turn-leases.js";

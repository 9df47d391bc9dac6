export * from "./agentwire-metrics.js";
export * from "./frame-log-metrics.js";
export * from "./mcp-metrics.js";
export * from "./mcp-status-route.js";
export * from "./metrics-access.js";
export * from "./metrics-route.js";

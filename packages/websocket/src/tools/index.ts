export * from "./builtin-server-tools.js";
export * from "./mcp-pins-path.js";
export * from "./repo-memory-store.js";
export * from "./tool-call-routing.js";
export * from "./tool-command-handlers.js";
export * from "./tool-policy.js";
export type { ToolScope } from "./tool-scope.js";
export * from "./ui-tool-proxy.js";

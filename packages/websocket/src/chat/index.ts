export * from "./approval-gate.js";
export type { ChatServices, ToolScope } from "./chat-services.js";
export * from "./compose-toolbelt.js";
export * from "./create-chat-services.js";
export * from "./run-chat-agent.js";
export * from "./thread-history.js";
export * from "./tool-policy.js";

export * from "./memory-store.js";
export * from "./memory-tools.js";
export * from "./web/html-to-text.js";
export * from "./web/ssrf-guard.js";
export * from "./web/web-fetch-tool.js";
export * from "./workspace/confine-path.js";
export * from "./workspace/workspace-tools.js";

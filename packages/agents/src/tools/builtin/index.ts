export * from "./workspace/confine-path.js";
export * from "./workspace/workspace-tools.js";

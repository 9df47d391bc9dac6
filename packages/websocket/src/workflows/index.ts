export * from "./create-editor-tools.js";
export * from "./route-turn.js";
export * from "./run-workflow-turn.js";

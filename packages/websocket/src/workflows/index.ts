export * from "./create-editor-tools.js";
export * from "./run-workflow-turn.js";

export * from "./create-editor-tools.js";
export * from "./editor-context.js";
export * from "./open-workflows.js";
export * from "./run-workflow-turn.js";
export type { WorkflowServices } from "./workflow-services.js";

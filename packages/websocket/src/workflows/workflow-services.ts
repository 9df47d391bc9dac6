import type { NodeRegistry } from "@agentwire-chat/agents";

/** The workflow route (saved workflows) and the workflows HTTP API; absent, the workflow route answers `unavailable`. */
export type WorkflowServices = { registry: NodeRegistry };

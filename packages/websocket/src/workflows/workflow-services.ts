import type { NodeRegistry } from "@agentwire-chat/agents";

/** Route 1 (saved workflows) and the workflows HTTP API; absent, route 1 answers `unavailable`. */
export type WorkflowServices = { registry: NodeRegistry };

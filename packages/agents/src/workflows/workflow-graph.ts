import { z } from "zod";

/** Node ids and port names: short, printable, safe to show in errors and UIs. */
const Name = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.-]+$/, "use letters, digits, '_', '.' or '-'");

/** One node of a stored workflow: its id, its registered type and its fixed property values. */
export const WorkflowNode = z.object({
  id: Name,
  type: z.string().min(1).max(200),
  properties: z.record(z.string(), z.unknown()).default({}),
});
export type WorkflowNode = z.infer<typeof WorkflowNode>;

/** A connection from one node's output port to another node's input port. */
export const WorkflowEdge = z.object({
  source: Name,
  source_port: Name,
  target: Name,
  target_port: Name,
});
export type WorkflowEdge = z.infer<typeof WorkflowEdge>;

/**
 * A stored workflow graph; structure only (an empty draft is a valid shape) — `validateWorkflow`
 * checks it against a registry before it runs.
 */
export const WorkflowGraph = z.object({
  nodes: z.array(WorkflowNode).max(200),
  edges: z.array(WorkflowEdge).max(1000).default([]),
});
export type WorkflowGraph = z.infer<typeof WorkflowGraph>;

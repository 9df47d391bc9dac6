import type { WorkflowGraph } from "./workflow-graph.js";

/** How much of a graph the model's context lists; past it the rest is counted, not shown. */
export const DESCRIBE_MAX_NODES = 60;
export const DESCRIBE_MAX_EDGES = 120;

/**
 * A workflow as the editor agent reads it in its context: node ids and types, then edges, at most
 * DESCRIBE_MAX_NODES and DESCRIBE_MAX_EDGES of each, with how many more there are (properties are
 * left out: build_workflow reads the whole graph when it edits).
 */
export function describeWorkflow(graph: WorkflowGraph): string {
  const { nodes, edges } = graph;
  const lines = [`${nodes.length} node(s), ${edges.length} edge(s).`];
  if (nodes.length > 0) lines.push("Nodes (id: type):");
  for (const n of nodes.slice(0, DESCRIBE_MAX_NODES)) lines.push(`- ${n.id}: ${n.type}`);
  if (nodes.length > DESCRIBE_MAX_NODES)
    lines.push(`- … and ${nodes.length - DESCRIBE_MAX_NODES} more node(s), not listed here`);
  if (edges.length > 0) lines.push("Edges (source.port -> target.port):");
  for (const e of edges.slice(0, DESCRIBE_MAX_EDGES))
    lines.push(`- ${e.source}.${e.source_port} -> ${e.target}.${e.target_port}`);
  if (edges.length > DESCRIBE_MAX_EDGES)
    lines.push(`- … and ${edges.length - DESCRIBE_MAX_EDGES} more edge(s), not listed here`);
  return lines.join("\n");
}

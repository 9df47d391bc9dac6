import type { WorkflowEdge, WorkflowGraph, WorkflowNode } from "./workflow-graph.js";

/** What an edit changed, by node id and by edge (`source.port->target.port`). */
export type WorkflowDiff = {
  nodes_added: string[];
  nodes_removed: string[];
  /** Same id, another type or other properties. */
  nodes_changed: string[];
  edges_added: string[];
  edges_removed: string[];
  /** One line for the model and the user: counts and the node ids. */
  summary: string;
};

/** The changes from `before` to `after`. */
export function diffWorkflows(before: WorkflowGraph, after: WorkflowGraph): WorkflowDiff {
  const was = new Map(before.nodes.map((n) => [n.id, n]));
  const now = new Map(after.nodes.map((n) => [n.id, n]));
  const nodes_added = after.nodes.filter((n) => !was.has(n.id)).map((n) => n.id);
  const nodes_removed = before.nodes.filter((n) => !now.has(n.id)).map((n) => n.id);
  const nodes_changed = after.nodes
    .filter((n) => {
      const old = was.get(n.id);
      return old !== undefined && !sameNode(old, n);
    })
    .map((n) => n.id);
  const oldEdges = new Set(before.edges.map(edgeKey));
  const newEdges = new Set(after.edges.map(edgeKey));
  const edges_added = [...newEdges].filter((e) => !oldEdges.has(e));
  const edges_removed = [...oldEdges].filter((e) => !newEdges.has(e));
  const part = (verb: string, ids: string[]) =>
    ids.length === 0 ? `${verb} 0 nodes` : `${verb} ${ids.length} node(s) (${ids.join(", ")})`;
  const summary = [
    part("added", nodes_added),
    part("removed", nodes_removed),
    part("changed", nodes_changed),
    `${edges_added.length} edge(s) added, ${edges_removed.length} removed`,
  ].join("; ");
  return { nodes_added, nodes_removed, nodes_changed, edges_added, edges_removed, summary };
}

function edgeKey(e: WorkflowEdge): string {
  return `${e.source}.${e.source_port}->${e.target}.${e.target_port}`;
}

function sameNode(a: WorkflowNode, b: WorkflowNode): boolean {
  return a.type === b.type && stable(a.properties) === stable(b.properties);
}

/** JSON with object keys sorted, so key order does not count as a change. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}

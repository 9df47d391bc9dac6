import type { SavedWorkflow } from "@agentwire-chat/protocol";
import type { GraphView } from "./client-tools.js";

/**
 * A saved workflow's graph (`{nodes: [{id, type}], edges: [{source, target}]}`, as build_workflow and
 * the workflows API store it) as the editor draws it: each node labelled with its type. The graph
 * comes from the server's store, not from a schema this page shares, so anything else is skipped.
 */
export function graphOfWorkflow(graph: SavedWorkflow["graph"]): GraphView {
  const nodes = (Array.isArray(graph.nodes) ? graph.nodes : []).flatMap((n: unknown) => {
    const node = n as { id?: unknown; type?: unknown };
    if (typeof node?.id !== "string") return [];
    return [{ id: node.id, label: typeof node.type === "string" ? node.type : node.id }];
  });
  const ids = new Set(nodes.map((n) => n.id));
  const edges = (Array.isArray(graph.edges) ? graph.edges : []).flatMap((e: unknown) => {
    const edge = e as { source?: unknown; target?: unknown };
    return typeof edge?.source === "string" &&
      typeof edge.target === "string" &&
      ids.has(edge.source) &&
      ids.has(edge.target)
      ? [{ from: edge.source, to: edge.target }]
      : [];
  });
  return { nodes, edges };
}

import type { GraphView } from "../editor/client-tools.js";

/** The graph the agent drew with ui_show_graph: nodes in order, then the edges between them. */
export function GraphPanel({ graph }: { graph: GraphView | undefined }) {
  if (!graph) return <p class="muted">No graph yet. Ask the agent to build or show a workflow.</p>;
  const label = new Map(graph.nodes.map((n) => [n.id, n.label]));
  return (
    <figure class="graph" aria-label="Workflow graph">
      <ol class="graph-nodes">
        {graph.nodes.map((n) => (
          <li key={n.id} class="graph-node">
            <strong>{n.label}</strong> <span class="muted">{n.id}</span>
          </li>
        ))}
      </ol>
      {graph.edges.length > 0 && (
        <ul class="graph-edges">
          {graph.edges.map((e) => (
            <li key={`${e.from}->${e.to}`}>
              {label.get(e.from)} → {label.get(e.to)}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

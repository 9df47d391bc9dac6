import { z } from "zod";
import type { NodeRegistry } from "./node-registry.js";
import type { NodeType } from "./node-type.js";
import { describeSchemaType, jsonTypeOf, portsCompatible, valueFits } from "./schema-compat.js";
import { WorkflowGraph } from "./workflow-graph.js";

/** One validation error; `node_id` is null for errors about the graph's shape as a whole. */
export const WorkflowIssue = z.object({
  node_id: z.string().nullable(),
  port: z.string().optional(),
  message: z.string(),
});
export type WorkflowIssue = z.infer<typeof WorkflowIssue>;

/** A valid graph with its nodes in a runnable (topological) order, or every error found. */
export type WorkflowValidation =
  | { ok: true; graph: WorkflowGraph; order: string[] }
  | { ok: false; errors: WorkflowIssue[] };

/** Checks a graph against a registry: types, ports, schema compatibility, required inputs, cycles. */
export function validateWorkflow(raw: unknown, registry: NodeRegistry): WorkflowValidation {
  const parsed = WorkflowGraph.safeParse(raw);
  if (!parsed.success) return { ok: false, errors: shapeIssues(parsed.error, raw) };
  const graph = parsed.data;
  if (graph.nodes.length === 0)
    return { ok: false, errors: [{ node_id: null, message: "the workflow has no nodes" }] };
  const errors: WorkflowIssue[] = [];
  const types = new Map<string, NodeType>();
  const seen = new Set<string>();
  for (const node of graph.nodes) {
    if (seen.has(node.id)) errors.push({ node_id: node.id, message: `duplicate node id "${node.id}"` });
    seen.add(node.id);
    const type = registry.get(node.type);
    if (type === undefined) errors.push({ node_id: node.id, message: `unknown node type "${node.type}"` });
    else types.set(node.id, type);
  }

  const fed = new Map<string, number>();
  for (const edge of graph.edges) {
    const source = types.get(edge.source);
    const target = types.get(edge.target);
    if (!seen.has(edge.source)) {
      errors.push({
        node_id: edge.target,
        port: edge.target_port,
        message: `edge from unknown node "${edge.source}"`,
      });
    }
    if (!seen.has(edge.target)) {
      errors.push({
        node_id: edge.source,
        port: edge.source_port,
        message: `edge to unknown node "${edge.target}"`,
      });
    }
    const out = source?.outputs.find((p) => p.name === edge.source_port);
    const inp = target?.inputs.find((p) => p.name === edge.target_port);
    if (source && !out) {
      errors.push({
        node_id: edge.source,
        port: edge.source_port,
        message: `${source.type} has no output "${edge.source_port}" (outputs: ${names(source.outputs)})`,
      });
    }
    if (target && !inp) {
      errors.push({
        node_id: edge.target,
        port: edge.target_port,
        message: `${target.type} has no input "${edge.target_port}" (inputs: ${names(target.inputs)})`,
      });
    }
    if (out && inp && !portsCompatible(out.schema, inp.schema)) {
      errors.push({
        node_id: edge.target,
        port: edge.target_port,
        message: `input expects ${describeSchemaType(inp.schema)} but ${edge.source}.${edge.source_port} gives ${describeSchemaType(out.schema)}`,
      });
    }
    const key = `${edge.target}\u0000${edge.target_port}`;
    fed.set(key, (fed.get(key) ?? 0) + 1);
    if (fed.get(key) === 2) {
      errors.push({
        node_id: edge.target,
        port: edge.target_port,
        message: "input is fed by more than one edge",
      });
    }
  }

  for (const node of graph.nodes) {
    const type = types.get(node.id);
    if (!type) continue;
    for (const port of type.inputs) {
      const connected = fed.has(`${node.id}\u0000${port.name}`);
      const hasProperty = Object.hasOwn(node.properties, port.name);
      if (!connected && !hasProperty && !port.optional) {
        errors.push({
          node_id: node.id,
          port: port.name,
          message: "required input is not connected and has no property",
        });
      }
      if (!connected && hasProperty && !valueFits(node.properties[port.name], port.schema)) {
        errors.push({
          node_id: node.id,
          port: port.name,
          message: `property expects ${describeSchemaType(port.schema)}, got ${jsonTypeOf(node.properties[port.name])}`,
        });
      }
    }
  }

  const order = topologicalOrder(graph);
  for (const id of order.cyclic) errors.push({ node_id: id, message: "node is part of a cycle" });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, graph, order: order.sorted };
}

/** Kahn's algorithm; nodes left over sit on (or behind) a cycle. */
function topologicalOrder(graph: WorkflowGraph): { sorted: string[]; cyclic: string[] } {
  const ids = [...new Set(graph.nodes.map((n) => n.id))];
  const indegree = new Map(ids.map((id) => [id, 0]));
  const next = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of graph.edges) {
    if (!indegree.has(e.source) || !indegree.has(e.target)) continue;
    indegree.set(e.target, (indegree.get(e.target) ?? 0) + 1);
    next.get(e.source)?.push(e.target);
  }
  const queue = ids.filter((id) => indegree.get(id) === 0);
  const sorted: string[] = [];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    sorted.push(id);
    for (const t of next.get(id) ?? []) {
      const d = (indegree.get(t) ?? 0) - 1;
      indegree.set(t, d);
      if (d === 0) queue.push(t);
    }
  }
  return { sorted, cyclic: ids.filter((id) => !sorted.includes(id)) };
}

function names(ports: readonly { name: string }[]): string {
  return ports.length ? ports.map((p) => p.name).join(", ") : "none";
}

/** Maps zod issues to workflow issues, naming the node when the path points into one. */
function shapeIssues(error: z.ZodError, raw: unknown): WorkflowIssue[] {
  return error.issues.slice(0, 20).map((issue) => {
    const [list, index] = issue.path;
    const where = issue.path
      .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join("");
    let nodeId: string | null = null;
    if (list === "nodes" && typeof index === "number" && raw && typeof raw === "object") {
      const node = (raw as { nodes?: unknown[] }).nodes?.[index];
      const id = node && typeof node === "object" ? (node as { id?: unknown }).id : undefined;
      if (typeof id === "string") nodeId = id;
    }
    return { node_id: nodeId, message: `${where || "(graph)"}: ${issue.message}` };
  });
}

/** One line per issue, e.g. `node "a" port "x": unknown input`. */
export function formatIssues(issues: readonly WorkflowIssue[]): string {
  return issues
    .map((i) => {
      const where = i.node_id === null ? "graph" : `node "${i.node_id}"${i.port ? ` port "${i.port}"` : ""}`;
      return `${where}: ${i.message}`;
    })
    .join("; ");
}

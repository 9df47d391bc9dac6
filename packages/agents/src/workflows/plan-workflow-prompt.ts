import type { NodeRegistry } from "./node-registry.js";
import type { PortSpec } from "./node-type.js";
import { formatIssues, type WorkflowIssue } from "./validate-workflow.js";
import type { WorkflowGraph } from "./workflow-graph.js";

/** The planner's system prompt: the graph format and every node type the registry offers. */
export function planWorkflowSystemPrompt(registry: NodeRegistry): string {
  const catalogue = registry
    .list()
    .map((n) =>
      [
        `### ${n.type}`,
        n.description,
        `inputs: ${n.inputs.length ? n.inputs.map(port).join("; ") : "none"}`,
        `outputs: ${n.outputs.length ? n.outputs.map(port).join("; ") : "none"}`,
      ].join("\n"),
    )
    .join("\n\n");
  return `You design workflows: directed acyclic graphs of nodes that run when the user sends a chat message.

Answer with the graph as JSON only, inside a \`\`\`json fence, in exactly this shape:
{"nodes": [{"id": "...", "type": "...", "properties": {...}}],
 "edges": [{"source": "<node id>", "source_port": "<output>", "target": "<node id>", "target_port": "<input>"}]}

Rules:
- Use only the node types listed below, and only their listed ports.
- Node ids are short and unique (letters, digits, '_', '.', '-').
- Every input not marked optional must be fed by exactly one edge, or set as a property of the same name (e.g. a template).
- An input may be fed by at most one edge. Port types must match ({} accepts anything).
- No cycles.
- Start from input.text (the user's message) and end in output.text (the reply) unless the objective says otherwise.

## Node types

${catalogue}`;
}

/** The first request: the objective. */
export function planWorkflowUserPrompt(objective: string): string {
  return `Objective: ${objective}\n\nReply with the workflow graph as JSON in a \`\`\`json fence.`;
}

/** The first request of an edit: the current graph whole, and what to change in it. */
export function editWorkflowUserPrompt(objective: string, current: WorkflowGraph): string {
  return [
    "The current workflow:",
    `\`\`\`json\n${JSON.stringify(current)}\n\`\`\``,
    `Change: ${objective}`,
    "",
    "Change only what this asks; keep every other node (its id, type and properties) and edge as it is.",
    "Reply with the complete changed graph as JSON in a ```json fence.",
  ].join("\n");
}

/** A repair request: what was wrong with the previous answer. */
export function repairWorkflowPrompt(
  problem: { parseError: string } | { issues: readonly WorkflowIssue[] },
): string {
  const what =
    "parseError" in problem
      ? `Your answer could not be read as a graph: ${problem.parseError}`
      : `The graph is invalid:\n${problem.issues.map((i) => `- ${formatIssues([i])}`).join("\n")}`;
  return `${what}\n\nReply with the complete corrected graph as JSON in a \`\`\`json fence.`;
}

function port(p: PortSpec): string {
  return `${p.name} ${JSON.stringify(p.schema)}${p.optional ? " (optional)" : ""}${p.description ? ` — ${p.description}` : ""}`;
}

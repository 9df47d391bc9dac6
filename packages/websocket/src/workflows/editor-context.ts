import { describeWorkflow, WorkflowGraph } from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";

/**
 * The system-prompt section of an editor turn: the workflow being edited (its name, node ids and
 * types, edges; bounded by describeWorkflow) and how build_workflow changes it. Read at the turn's
 * start: a graph the turn itself changes is in build_workflow's result, not here.
 */
export async function editorContextSection(
  repos: Repositories,
  userId: string,
  workflowId: string,
  /** build_workflow is in the turn's toolbelt: the section says how to use it. */
  canBuild: boolean,
): Promise<string> {
  const row = await repos.workflows.get(userId, workflowId);
  const head = "\n\n## The workflow in the editor";
  if (!row)
    return `${head}\nworkflow_id ${JSON.stringify(workflowId)} is not one of the user's workflows yet${canBuild ? ": build_workflow creates a new one" : ""}.`;
  const graph = WorkflowGraph.safeParse(row.graph);
  const body = graph.success
    ? describeWorkflow(graph.data)
    : "Its stored graph cannot be read as nodes and edges.";
  const about = `workflow_id ${JSON.stringify(row.id)}, named ${JSON.stringify(row.name)}: ${body}`;
  if (!canBuild) return [head, about].join("\n");
  return [
    head,
    about,
    "To change it, call build_workflow with what to change: it edits this graph and keeps the rest. " +
      'mode "replace" discards it for a new design: ask the user first unless they asked for that.',
  ].join("\n");
}

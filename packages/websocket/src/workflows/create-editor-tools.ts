import {
  createBuildWorkflowTool,
  type NodeRegistry,
  type ProviderRegistry,
  type Tool,
  WorkflowGraph,
} from "@agentwire-chat/agents";
import type { Repositories, WorkflowRow } from "@agentwire-chat/storage";
import type { ToolScope } from "../tools/tool-scope.js";

export type EditorToolsOptions = {
  registry: NodeRegistry;
  repos: Repositories;
  providers: Pick<ProviderRegistry, "get">;
  /** Repair rounds after the planner's first answer; default 2. */
  maxRepairs?: number;
  /**
   * Told of each save (`OpenWorkflows.saved`: the user's editors redraw); `replacing` is the editor's
   * workflow_id when the save went into a new workflow because that id was not the user's.
   */
  onSaved?: (userId: string, row: WorkflowRow, replacing?: string) => void;
};

/**
 * `ChatServices.editorTools`: build_workflow, planning through the turn's own model calls, editing
 * the editor's workflow (`chat_context.workflow_id`) when it is the user's and saving into it, else
 * saving into a new one. No tools when the scope's provider or model is unknown (nothing to plan with).
 */
export function createEditorTools(opts: EditorToolsOptions): (scope: ToolScope) => Tool[] {
  return (scope) => {
    const provider = scope.provider !== undefined ? opts.providers.get(scope.provider) : undefined;
    if (!provider || scope.model === undefined) return [];
    const { repos } = opts;
    // The editor's, or an editor-based scope's (the protocol and the router allow it nowhere else).
    const editorWorkflowId = scope.chatContext.workflow_id;
    const tool = createBuildWorkflowTool({
      registry: opts.registry,
      ...(opts.maxRepairs !== undefined && { maxRepairs: opts.maxRepairs }),
      loadWorkflow: async () => {
        if (editorWorkflowId === undefined) return undefined;
        const row = await repos.workflows.get(scope.userId, editorWorkflowId);
        if (!row) return undefined;
        const graph = WorkflowGraph.safeParse(row.graph);
        if (!graph.success) throw new Error("its stored graph is not nodes and edges");
        return graph.data;
      },
      saveWorkflow: async (graph: WorkflowGraph, objective: string) => {
        const stored = graph as unknown as Record<string, unknown>;
        if (editorWorkflowId !== undefined) {
          const updated = await repos.workflows.update(scope.userId, editorWorkflowId, { graph: stored });
          if (updated) {
            opts.onSaved?.(scope.userId, updated);
            return { workflow_id: updated.id };
          }
        }
        const created = await repos.workflows.create(scope.userId, nameOf(objective), stored);
        opts.onSaved?.(scope.userId, created, editorWorkflowId);
        return { workflow_id: created.id };
      },
    });
    return [tool as Tool];
  };
}

function nameOf(objective: string): string {
  const text = objective.replace(/\s+/g, " ").trim();
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}

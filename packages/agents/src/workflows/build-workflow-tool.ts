import { z } from "zod";
import { defineTool, ok } from "../tools/define-tool.js";
import type { Tool, ToolOutcome } from "../tools/tool.js";
import { diffWorkflows } from "./diff-workflows.js";
import type { NodeRegistry } from "./node-registry.js";
import { planWorkflow } from "./plan-workflow.js";
import { formatIssues, type WorkflowIssue } from "./validate-workflow.js";
import type { WorkflowGraph } from "./workflow-graph.js";

export type BuildWorkflowToolOptions = {
  registry: NodeRegistry;
  /** Stores the graph (the editor's workflow) and returns its id. */
  saveWorkflow: (graph: WorkflowGraph, objective: string) => Promise<{ workflow_id: string }>;
  /**
   * The editor's current graph: undefined when there is none (a new workflow); throws when the stored
   * graph cannot be read. Absent: every call designs a new graph.
   */
  loadWorkflow?: () => Promise<WorkflowGraph | undefined>;
  /** Repair rounds after the first answer; default 2. */
  maxRepairs?: number;
};

const BuildWorkflowArgs = z.object({
  objective: z
    .string()
    .trim()
    .min(1)
    .max(4000)
    .describe("what the workflow should do, or (mode edit) what to change in it, in plain words"),
  mode: z
    .enum(["edit", "replace"])
    .optional()
    .describe(
      "edit: change the workflow in the editor and keep the rest; replace: design a new graph in its place. " +
        "Default: edit when the editor's workflow has nodes, else replace.",
    ),
});

/** The tool's name, reserved from client UI tools by the server. */
export const BUILD_WORKFLOW = "build_workflow";

/**
 * `build_workflow {objective, mode?}` (editor context): plans a valid graph with the turn's model and
 * saves it. Editing, the model gets the current graph and answers with it changed; the result names
 * what changed (`changes`). Replacing is explicit, or the default only when there is nothing to keep.
 * Its model calls and progress go through the loop (`ctx.callModel`, `ctx.emit`), so they count in the
 * turn's budget, usage, ledger and tree like the loop's own; outside a loop it refuses to run.
 */
export function createBuildWorkflowTool(
  opts: BuildWorkflowToolOptions,
): Tool<z.infer<typeof BuildWorkflowArgs>> {
  const maxRepairs = opts.maxRepairs ?? 2;
  return defineTool({
    name: BUILD_WORKFLOW,
    description:
      "Edits the workflow in the editor (a graph of nodes that runs on each chat message), or designs a new one, " +
      "for an objective; checks it and saves it. mode edit (default when the workflow has nodes) keeps everything " +
      "the objective does not change; mode replace discards the current graph. Returns {workflow_id, mode, graph, changes}.",
    args: BuildWorkflowArgs,
    permissionClass: "editor_mutate",
    // It replaces the editor's workflow: two at once would race on the same document.
    parallelSafe: false,
    async execute({ objective, mode: asked }, ctx): Promise<ToolOutcome> {
      if (!ctx.callModel)
        return failure("it runs only inside an agent turn (no model call to plan with)", []);
      let current: WorkflowGraph | undefined;
      try {
        current = await opts.loadWorkflow?.();
      } catch (err) {
        // Never replace what cannot be read by default: the user may want it back.
        if (asked !== "replace")
          return failure(
            `the current workflow cannot be read (${messageOf(err)}); use mode "replace" to start over`,
            [],
          );
      }
      const before = current ?? { nodes: [], edges: [] };
      const mode = asked ?? (before.nodes.length > 0 ? "edit" : "replace");
      const plan = await planWorkflow({
        objective,
        ...(mode === "edit" && before.nodes.length > 0 && { current: before }),
        registry: opts.registry,
        callModel: ctx.callModel,
        maxRepairs,
        signal: ctx.signal,
        parentId: ctx.toolCallId,
        depth: ctx.depth + 1,
        ...(ctx.emit && { onEvent: ctx.emit }),
      });
      if (!plan.ok) return failure(plan.error, plan.issues);
      try {
        const saved = await opts.saveWorkflow(plan.graph, objective);
        const changes = diffWorkflows(before, plan.graph);
        return ok({ workflow_id: saved.workflow_id, mode, graph: plan.graph, changes });
      } catch (err) {
        return failure(`could not save the workflow: ${messageOf(err)}`, []);
      }
    },
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function failure(error: string, issues: WorkflowIssue[]): ToolOutcome {
  const message = issues.length
    ? `build_workflow: ${error}: ${formatIssues(issues)}`
    : `build_workflow: ${error}`;
  return { type: "result", output: { error: message, errors: issues }, isError: true };
}

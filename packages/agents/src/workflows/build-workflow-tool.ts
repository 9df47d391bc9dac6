import { z } from "zod";
import { defineTool, ok } from "../tools/define-tool.js";
import type { Tool, ToolOutcome } from "../tools/tool.js";
import type { NodeRegistry } from "./node-registry.js";
import { planWorkflow } from "./plan-workflow.js";
import { formatIssues, type WorkflowIssue } from "./validate-workflow.js";
import type { WorkflowGraph } from "./workflow-graph.js";

export type BuildWorkflowToolOptions = {
  registry: NodeRegistry;
  /** Stores the graph (the editor's workflow) and returns its id. */
  saveWorkflow: (graph: WorkflowGraph, objective: string) => Promise<{ workflow_id: string }>;
  /** Repair rounds after the first answer; default 2. */
  maxRepairs?: number;
};

const BuildWorkflowArgs = z.object({
  objective: z.string().trim().min(1).max(4000).describe("what the workflow should do, in plain words"),
});

/**
 * `build_workflow {objective}` (editor context): plans a valid graph with the turn's model and saves it.
 * Its model calls and progress go through the loop (`ctx.callModel`, `ctx.emit`), so they count in the
 * turn's budget, usage, ledger and tree like the loop's own; outside a loop it refuses to run.
 */
export function createBuildWorkflowTool(
  opts: BuildWorkflowToolOptions,
): Tool<z.infer<typeof BuildWorkflowArgs>> {
  const maxRepairs = opts.maxRepairs ?? 2;
  return defineTool({
    name: "build_workflow",
    description:
      "Designs a workflow (a graph of nodes that runs on each chat message) for an objective, checks it and saves it in the editor. Returns {workflow_id, graph}.",
    args: BuildWorkflowArgs,
    permissionClass: "editor_mutate",
    // It replaces the editor's workflow: two at once would race on the same document.
    parallelSafe: false,
    async execute({ objective }, ctx): Promise<ToolOutcome> {
      if (!ctx.callModel)
        return failure("it runs only inside an agent turn (no model call to plan with)", []);
      const plan = await planWorkflow({
        objective,
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
        return ok({ workflow_id: saved.workflow_id, graph: plan.graph });
      } catch (err) {
        return failure(
          `could not save the workflow: ${err instanceof Error ? err.message : String(err)}`,
          [],
        );
      }
    },
  });
}

function failure(error: string, issues: WorkflowIssue[]): ToolOutcome {
  const message = issues.length
    ? `build_workflow: ${error}: ${formatIssues(issues)}`
    : `build_workflow: ${error}`;
  return { type: "result", output: { error: message, errors: issues }, isError: true };
}

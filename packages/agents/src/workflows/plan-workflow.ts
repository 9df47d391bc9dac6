import type { ChunkFrame, ToolCallUpdateFrame, UnstampedFrame } from "@agentwire-chat/protocol";
import type { ModelMessage } from "../providers/model-message.js";
import type { ModelCallRequest, ModelCallResult } from "../tools/tool.js";
import { extractGraphJson } from "./extract-graph-json.js";
import type { NodeRegistry } from "./node-registry.js";
import { openAttemptNode } from "./plan-attempt-node.js";
import {
  editWorkflowUserPrompt,
  planWorkflowSystemPrompt,
  planWorkflowUserPrompt,
  repairWorkflowPrompt,
} from "./plan-workflow-prompt.js";
import { validateWorkflow, type WorkflowIssue } from "./validate-workflow.js";
import type { WorkflowGraph } from "./workflow-graph.js";

/** Progress of the planner, nested under the tool call that runs it. */
export type PlannerEvent = UnstampedFrame<ChunkFrame> | UnstampedFrame<ToolCallUpdateFrame>;

export type PlanWorkflowOptions = {
  objective: string;
  /** The graph to edit: the model gets it whole and answers with it changed; absent, it designs anew. */
  current?: WorkflowGraph;
  registry: NodeRegistry;
  /**
   * One tool-less model call of the turn (`ToolContext.callModel`): the loop checks the budget,
   * writes the ledger row and counts usage and tokens, so the planner is accounted like the loop.
   */
  callModel: (request: ModelCallRequest) => Promise<ModelCallResult>;
  /** Repair rounds after the first answer; the model is called at most maxRepairs + 1 times. */
  maxRepairs: number;
  signal: AbortSignal;
  /** Nesting of the emitted events: the enclosing tool call and its depth + 1. */
  parentId: string;
  depth: number;
  /** Where the progress goes (`ToolContext.emit`: through the turn's tree, observer and frame log). */
  onEvent?: (event: PlannerEvent) => void;
};

/** A valid graph, or why there is none (with the last validation errors, if any). */
export type PlanOutcome =
  | { ok: true; graph: WorkflowGraph }
  | { ok: false; error: string; issues: WorkflowIssue[] };

/**
 * Asks the model for a graph, validates it and feeds the errors back for a bounded number of repairs.
 * Each attempt is a `plan_workflow` node under the tool call that starts and ends exactly once.
 */
export async function planWorkflow(opts: PlanWorkflowOptions): Promise<PlanOutcome> {
  const emit = opts.onEvent ?? (() => {});
  const systemPrompt = planWorkflowSystemPrompt(opts.registry);
  const first = opts.current
    ? editWorkflowUserPrompt(opts.objective, opts.current)
    : planWorkflowUserPrompt(opts.objective);
  const messages: ModelMessage[] = [{ role: "user", content: first }];
  let issues: WorkflowIssue[] = [];

  for (let attempt = 1; attempt <= opts.maxRepairs + 1; attempt++) {
    const node = openAttemptNode({
      id: `${opts.parentId}:plan-${attempt}`,
      attempt,
      parentId: opts.parentId,
      depth: opts.depth,
      signal: opts.signal,
      emit,
    });
    if (node.ended) return { ok: false, error: "stopped", issues };
    const answer = await opts.callModel({
      systemPrompt,
      messages: messages.slice(),
      operation: "workflow_planner",
    });
    if (!answer.ok) {
      node.end(answer.error, true);
      return { ok: false, error: answer.error, issues };
    }
    if (node.ended) return { ok: false, error: "stopped", issues };
    // The answer is not streamed (the call is the loop's); it still reaches the client, in one piece.
    if (answer.text)
      emit({ type: "chunk", content: answer.text, parent_id: opts.parentId, depth: opts.depth });

    messages.push({ role: "assistant", text: answer.text });
    const json = extractGraphJson(answer.text);
    if (!json.ok) {
      issues = [{ node_id: null, message: json.error }];
      node.end({ valid: false, errors: issues }, true);
      messages.push({ role: "user", content: repairWorkflowPrompt({ parseError: json.error }) });
      continue;
    }
    const valid = validateWorkflow(json.value, opts.registry);
    if (valid.ok) {
      node.end({ valid: true, nodes: valid.graph.nodes.length, edges: valid.graph.edges.length }, false);
      return { ok: true, graph: valid.graph };
    }
    issues = valid.errors;
    node.end({ valid: false, errors: issues }, true);
    messages.push({ role: "user", content: repairWorkflowPrompt({ issues }) });
  }
  return {
    ok: false,
    error: `no valid workflow after ${opts.maxRepairs} repair round${opts.maxRepairs === 1 ? "" : "s"}`,
    issues,
  };
}

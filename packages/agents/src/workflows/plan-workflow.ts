import type { ChunkFrame, ToolCallUpdateFrame, UnstampedFrame } from "@agentwire/protocol";
import type { ModelMessage } from "../providers/model-message.js";
import type { Provider } from "../providers/provider.js";
import type { ProviderUsage } from "../providers/provider-event.js";
import { extractGraphJson } from "./extract-graph-json.js";
import type { NodeRegistry } from "./node-registry.js";
import {
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
  registry: NodeRegistry;
  provider: Provider;
  model: string;
  /** Repair rounds after the first answer; the model is called at most maxRepairs + 1 times. */
  maxRepairs: number;
  signal: AbortSignal;
  /** Nesting of the emitted events: the enclosing tool call and its depth + 1. */
  parentId: string;
  depth: number;
  countLlmCall?: () => boolean;
  onEvent?: (event: PlannerEvent) => void;
  onUsage?: (usage: ProviderUsage) => void;
  maxTokens?: number;
};

/** A valid graph, or why there is none (with the last validation errors, if any). */
export type PlanOutcome =
  | { ok: true; graph: WorkflowGraph }
  | { ok: false; error: string; issues: WorkflowIssue[] };

/** Asks the model for a graph, validates it and feeds the errors back for a bounded number of repairs. */
export async function planWorkflow(opts: PlanWorkflowOptions): Promise<PlanOutcome> {
  const emit = opts.onEvent ?? (() => {});
  const nesting = { parent_id: opts.parentId, depth: opts.depth };
  const systemPrompt = planWorkflowSystemPrompt(opts.registry);
  const messages: ModelMessage[] = [{ role: "user", content: planWorkflowUserPrompt(opts.objective) }];
  let issues: WorkflowIssue[] = [];

  for (let attempt = 0; attempt <= opts.maxRepairs; attempt++) {
    if (opts.countLlmCall && !opts.countLlmCall()) {
      return { ok: false, error: "the turn's LLM call budget is exhausted", issues };
    }
    const callId = `${opts.parentId}:plan-${attempt + 1}`;
    const started = performance.now();
    const end = (result: unknown, isError: boolean) =>
      emit({
        type: "tool_call_update",
        tool_call_id: callId,
        name: "plan_workflow",
        status: "end",
        result,
        is_error: isError,
        duration_ms: Math.max(0, performance.now() - started),
        ...nesting,
      });
    emit({
      type: "tool_call_update",
      tool_call_id: callId,
      name: "plan_workflow",
      status: "start",
      args: { attempt: attempt + 1 },
      title: attempt === 0 ? "Planning the workflow" : `Repairing the workflow (round ${attempt})`,
      ...nesting,
    });

    let text = "";
    for await (const ev of opts.provider.stream(
      {
        model: opts.model,
        systemPrompt,
        messages,
        tools: [],
        ...(opts.maxTokens && { maxTokens: opts.maxTokens }),
      },
      opts.signal,
    )) {
      if (ev.type === "text-delta") {
        text += ev.text;
        emit({ type: "chunk", content: ev.text, ...nesting });
      } else if (ev.type === "usage") {
        opts.onUsage?.(ev.usage);
      } else if (ev.type === "error") {
        const error = `model error: ${ev.error.message}`;
        end(error, true);
        return { ok: false, error, issues };
      }
    }
    if (opts.signal.aborted) {
      end("aborted", true);
      return { ok: false, error: "aborted", issues };
    }

    messages.push({ role: "assistant", text });
    const json = extractGraphJson(text);
    if (!json.ok) {
      issues = [{ node_id: null, message: json.error }];
      end({ valid: false, errors: issues }, true);
      messages.push({ role: "user", content: repairWorkflowPrompt({ parseError: json.error }) });
      continue;
    }
    const valid = validateWorkflow(json.value, opts.registry);
    if (valid.ok) {
      end({ valid: true, nodes: valid.graph.nodes.length, edges: valid.graph.edges.length }, false);
      return { ok: true, graph: valid.graph };
    }
    issues = valid.errors;
    end({ valid: false, errors: issues }, true);
    messages.push({ role: "user", content: repairWorkflowPrompt({ issues }) });
  }
  return {
    ok: false,
    error: `no valid workflow after ${opts.maxRepairs} repair round${opts.maxRepairs === 1 ? "" : "s"}`,
    issues,
  };
}

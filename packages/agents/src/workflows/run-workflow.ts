import { randomUUID } from "node:crypto";
import {
  type JobUpdateFrame,
  jobStatusOnWire,
  type NodeStatus,
  type NodeUpdateFrame,
  nodeStatusOnWire,
  preview,
  TurnStatus,
  type UnstampedFrame,
} from "@agentwire-chat/protocol";
import type { z } from "zod";
import type { BudgetBreach } from "../budget/turn-budget.js";
import { abortedStatus } from "../loop/aborted-status.js";
import { AsyncQueue } from "./async-queue.js";
import { invokeNode, type NodeSettlement } from "./invoke-node.js";
import type { NodeRegistry } from "./node-registry.js";
import type { NodeContext, NodeType, WorkflowRunInput } from "./node-type.js";
import { outputText } from "./output-text.js";
import { formatIssues, validateWorkflow } from "./validate-workflow.js";
import type { WorkflowNode } from "./workflow-graph.js";

/** What a workflow run yields: job and node updates, unstamped. */
export type WorkflowFrame = UnstampedFrame<JobUpdateFrame> | UnstampedFrame<NodeUpdateFrame>;
/**
 * How a run ended, in turn words: `complete`; `error` (a node failed, or the graph is invalid);
 * `budget_exceeded` (its turn's budget tripped); `stopped` or `interrupted` (its signal fired). job_update
 * frames carry the wire's words for them (jobStatusOnWire).
 */
export const WorkflowRunStatus = TurnStatus.extract([
  "complete",
  "error",
  "budget_exceeded",
  "stopped",
  "interrupted",
]);
export type WorkflowRunStatus = z.infer<typeof WorkflowRunStatus>;
type EndingStatus = Exclude<WorkflowRunStatus, "complete">;

/** How a run ended. `outputs` maps each completed `output.*` node id to its output values. */
export type WorkflowRunResult = {
  status: WorkflowRunStatus;
  outputs: Record<string, Record<string, unknown>>;
  /** The output text to store as the assistant message. */
  text: string;
  error?: string;
};

export type RunWorkflowOptions = {
  /** The stored graph; validated against `registry` before anything runs. */
  graph: unknown;
  registry: NodeRegistry;
  /** The chat message (and its provider/model) that started the run. */
  input: WorkflowRunInput;
  /** Aborting it stops the run (→ stopped or interrupted, by its reason). */
  signal: AbortSignal;
  /**
   * The turn's budget (a TurnBudget): its first breach ends the run as budget_exceeded. The turn's
   * driver owns the one wall-clock timer; absent, the run has no budget of its own.
   */
  budget?: RunBudget;
  jobId?: string;
  workflowId?: string;
  /** Returns false when the turn's budget refuses another LLM call; default: always allowed. */
  countLlmCall?: () => boolean;
};

/** What a run watches of its turn's budget: the signal a breach aborts, and the breach. */
export type RunBudget = { readonly signal: AbortSignal; readonly breach: BudgetBreach | null };

type Event =
  | { kind: "settled"; id: string; settlement: NodeSettlement }
  | { kind: "progress"; id: string; preview: string }
  | { kind: "end" };
type NodeState = "waiting" | NodeStatus;
// node_update previews are card headers in the editor: shorter than the stored tree's previews.
const NODE_PREVIEW_CHARS = 200;

/**
 * Runs a workflow DAG: a node starts as soon as all its inputs are ready, so independent branches
 * run in parallel. A failing node fails the job, aborts running siblings and skips what has not
 * started. Yields job/node updates; returns the outputs and the text to store.
 */
export async function* runWorkflow(
  opts: RunWorkflowOptions,
): AsyncGenerator<WorkflowFrame, WorkflowRunResult> {
  const jobId = opts.jobId ?? randomUUID();
  const wf = opts.workflowId !== undefined ? { workflow_id: opts.workflowId } : {};
  const job = (status: "running" | WorkflowRunStatus, error?: string): WorkflowFrame => ({
    type: "job_update",
    job_id: jobId,
    ...wf,
    status: jobStatusOnWire(status),
    ...(error !== undefined && { error }),
  });
  yield job("running");

  const valid = validateWorkflow(opts.graph, opts.registry);
  if (!valid.ok) {
    const error = `invalid workflow: ${formatIssues(valid.errors)}`;
    yield job("error", error);
    return { status: "error", outputs: {}, text: "", error };
  }
  const { graph, order } = valid;
  const nodes = new Map<string, { node: WorkflowNode; type: NodeType }>();
  for (const node of graph.nodes)
    nodes.set(node.id, { node, type: opts.registry.get(node.type) as NodeType });
  const pending = new Map(order.map((id) => [id, 0]));
  for (const e of graph.edges) pending.set(e.target, (pending.get(e.target) ?? 0) + 1);
  const state = new Map<string, NodeState>(order.map((id) => [id, "waiting"]));
  const results = new Map<string, Record<string, unknown>>();
  const lastPreview = new Map<string, string>();

  const queue = new AsyncQueue<Event>();
  const jobAbort = new AbortController();
  let ending: { status: EndingStatus; error: string } | undefined;
  const end = (status: EndingStatus, error: string) => {
    if (ending) return;
    ending = { status, error };
    jobAbort.abort();
    queue.push({ kind: "end" });
  };
  const onStop = () => end(abortedStatus(opts.signal), "workflow stopped");
  opts.signal.addEventListener("abort", onStop, { once: true });
  const budget = opts.budget;
  const onBreach = () => end("budget_exceeded", exceeded(budget?.breach ?? null));
  budget?.signal.addEventListener("abort", onBreach, { once: true });
  if (budget?.signal.aborted) onBreach();
  if (opts.signal.aborted) onStop();

  const update = (
    id: string,
    status: NodeStatus,
    extra: { result_preview?: string; error?: string } = {},
  ): WorkflowFrame => ({
    type: "node_update",
    job_id: jobId,
    node_id: id,
    node_type: nodes.get(id)?.node.type,
    status: nodeStatusOnWire(status),
    ...extra,
  });

  const start = (id: string): WorkflowFrame => {
    const { node, type } = nodes.get(id)!;
    state.set(id, "running");
    const ctx: NodeContext = {
      nodeId: id,
      properties: node.properties,
      input: opts.input,
      progress: (preview) => queue.push({ kind: "progress", id, preview }),
      countLlmCall: opts.countLlmCall ?? (() => true),
    };
    void invokeNode(type, gatherInputs(id), ctx, jobAbort.signal).then((settlement) =>
      queue.push({ kind: "settled", id, settlement }),
    );
    return update(id, "running");
  };

  const gatherInputs = (id: string): Record<string, unknown> => {
    const { node, type } = nodes.get(id)!;
    const inputs: Record<string, unknown> = {};
    for (const port of type.inputs) {
      if (Object.hasOwn(node.properties, port.name)) inputs[port.name] = node.properties[port.name];
    }
    for (const e of graph.edges) {
      if (e.target === id) inputs[e.target_port] = results.get(e.source)?.[e.source_port];
    }
    return inputs;
  };

  const readyWaiting = () => order.filter((id) => state.get(id) === "waiting" && pending.get(id) === 0);
  const running = () => order.filter((id) => state.get(id) === "running").length;

  try {
    if (!ending) for (const id of readyWaiting()) yield start(id);
    while (running() > 0) {
      const ev = await queue.next();
      if (ev.kind === "end") continue;
      if (state.get(ev.id) !== "running") continue;
      if (ev.kind === "progress") {
        const shown = preview(ev.preview, NODE_PREVIEW_CHARS);
        if (ending || lastPreview.get(ev.id) === shown) continue;
        lastPreview.set(ev.id, shown);
        yield update(ev.id, "running", { result_preview: shown });
        continue;
      }
      const s = ev.settlement;
      if (s.kind === "aborted" || (ending && !s.result.ok)) {
        state.set(ev.id, "stopped");
        yield update(ev.id, "stopped", ending ? { error: ending.error } : {});
      } else if (!s.result.ok) {
        state.set(ev.id, "error");
        yield update(ev.id, "error", { error: s.result.error });
        end("error", `node "${ev.id}" (${nodes.get(ev.id)?.node.type}) failed: ${s.result.error}`);
      } else {
        state.set(ev.id, "complete");
        results.set(ev.id, s.result.outputs);
        // One output previews as its value, several as the object of them.
        const values = Object.values(s.result.outputs);
        const shown = values.length === 1 ? values[0] : s.result.outputs;
        yield update(ev.id, "complete", { result_preview: preview(shown, NODE_PREVIEW_CHARS) });
        for (const e of graph.edges) {
          if (e.source === ev.id) pending.set(e.target, (pending.get(e.target) ?? 0) - 1);
        }
        if (!ending) for (const id of readyWaiting()) yield start(id);
      }
    }
    for (const id of order) {
      if (state.get(id) !== "waiting") continue;
      state.set(id, "skipped");
      yield update(id, "skipped");
    }
  } finally {
    budget?.signal.removeEventListener("abort", onBreach);
    opts.signal.removeEventListener("abort", onStop);
    // A consumer that stops iterating early must not leave nodes running.
    if (!jobAbort.signal.aborted) jobAbort.abort();
  }

  const outputs: Record<string, Record<string, unknown>> = {};
  const texts: string[] = [];
  for (const id of order) {
    const { node } = nodes.get(id)!;
    const values = results.get(id);
    if (!node.type.startsWith("output.") || !values) continue;
    outputs[id] = values;
    for (const v of Object.values(values)) texts.push(outputText(v));
  }
  const text = texts.join("\n\n");
  const final = ending ?? { status: "complete" as const };
  yield job(final.status, ending?.error);
  return { status: final.status, outputs, text, ...(ending && { error: ending.error }) };
}

/** The job's error for a budget breach (the wall clock is the one a workflow run can trip). */
function exceeded(breach: BudgetBreach | null): string {
  if (!breach) return "workflow exceeded its budget";
  if (breach.reason === "wall_clock") return `workflow exceeded its wall-clock budget of ${breach.limit} ms`;
  return `workflow exceeded its ${breach.reason} budget of ${breach.limit}`;
}

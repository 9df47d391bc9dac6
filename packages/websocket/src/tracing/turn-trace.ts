import {
  CREATE_PLAN,
  type LlmCallRecord,
  type LoopEvent,
  RUN_SUBTASK,
  type ToolCallUpdateEvent,
} from "@agentwire-chat/agents";
import type { TurnStatus } from "@agentwire-chat/protocol";
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { ObservedTurn, TurnObserver } from "../turns/turn-observer.js";
import { AgentwireAttr, GenAi, GenAiOperation } from "./gen-ai-attributes.js";

/** One open span and where it hangs; agent spans (the turn, a subtask) also add up their tokens. */
type Node = {
  span: Span;
  start: number;
  context: Context;
  parent: Node | undefined;
  tokens?: { input: number; output: number };
};

/** A plan's step: a node of create_plan's call that runs an agent level of its own, like run_subtask. */
const PLAN_STEP = "plan_step";

/** The nodes under which an agent level runs (its `invoke_agent` span, named after the agent). */
const AGENT_NODES: ReadonlyMap<string, string> = new Map([
  [RUN_SUBTASK, "subtask"],
  [PLAN_STEP, PLAN_STEP],
]);

/** Turn statuses that mean the turn did not deliver its answer: the root span's status is ERROR. */
const FAILED: ReadonlySet<TurnStatus> = new Set([
  "error",
  "iteration_limit",
  "budget_exceeded",
  "interrupted",
]);

/**
 * The spans of one turn segment, built from the loop's events the way the execution tree is: the
 * turn (`invoke_agent`) at the root, one `execute_tool` span per tool call under the agent that made
 * it, for run_subtask (and a plan's step) an `invoke_agent` span under the call for the subtask's own
 * model and tool spans, and one `chat` span per provider call with its `agentwire.operation` (a
 * tool's own calls, create_plan's planner and reviewer, hang under the tool's span). Every time comes from one strictly increasing
 * clock (epoch ms), so a child never sticks out of its parent.
 */
export class TurnTrace implements TurnObserver {
  private readonly root: Node;
  /** Open tool-call spans by tool call id. */
  private readonly calls = new Map<string, Node>();
  /** Open subtask spans by the id of the run_subtask call running them. */
  private readonly subtasks = new Map<string, Node>();
  /** Provider calls seen before the call they ran under, by that call's id (see llmCall). */
  private readonly early = new Map<string, LlmCallRecord[]>();
  private readonly ids: Attributes;
  private readonly startedAt: number;
  private readonly now: () => number;
  private ended = false;

  /** `clock` gives epoch milliseconds (default Date.now). */
  constructor(
    private readonly tracer: Tracer,
    private readonly turn: ObservedTurn,
    clock: () => number = Date.now,
  ) {
    this.now = monotonic(clock);
    this.ids = {
      [AgentwireAttr.threadId]: turn.threadId,
      [AgentwireAttr.turnId]: turn.turnId,
      [GenAi.conversationId]: turn.threadId,
    };
    this.startedAt = this.now();
    this.root = this.open("invoke_agent agentwire", SpanKind.INTERNAL, undefined, {
      ...this.agent("agentwire", 0),
      [AgentwireAttr.resumed]: turn.resumed,
    });
  }

  /** False when the sampler dropped the turn: its spans would record nothing. */
  get recording(): boolean {
    return this.root.span.isRecording();
  }

  llmCall(record: LlmCallRecord): void {
    if (this.ended) return;
    const { parentId } = record;
    if (parentId !== null && !this.subtasks.has(parentId) && !this.calls.has(parentId)) {
      // A plan step's `start` comes through create_plan's event channel, the step's calls straight
      // from the loop: its first call may be seen first. Held until the step's span opens (or ends,
      // for a step started in an earlier segment), so the call hangs under the step.
      const held = this.early.get(parentId);
      if (held) held.push(record);
      else this.early.set(parentId, [record]);
      return;
    }
    this.chatSpan(record);
  }

  /** The `chat` span of one provider call, under the agent (or tool call) it ran for. */
  private chatSpan(record: LlmCallRecord): void {
    const parent = this.agentOf(
      record.parentId,
      record.depth,
      record.operation === PLAN_STEP ? PLAN_STEP : RUN_SUBTASK,
    );
    // The record has whole milliseconds: clamped into its parent's time so it never sticks out.
    const start = Math.max(record.startedAt, parent.start);
    const end = Math.max(start, Math.min(record.startedAt + record.latencyMs, this.now()));
    const attributes: Attributes = {
      ...this.ids,
      [GenAi.operation]: GenAiOperation.chat,
      [GenAi.provider]: record.provider,
      [GenAi.system]: record.provider,
      [GenAi.requestModel]: record.model,
      [AgentwireAttr.operation]: record.operation,
      [GenAi.inputTokens]: record.inputTokens,
      [GenAi.outputTokens]: record.outputTokens,
      [AgentwireAttr.depth]: record.depth,
      ...(record.parentId !== null && { [AgentwireAttr.parentId]: record.parentId }),
      ...(record.reasoningTokens > 0 && { [GenAi.reasoningTokens]: record.reasoningTokens }),
      ...(record.cacheReadTokens > 0 && { [GenAi.cacheReadTokens]: record.cacheReadTokens }),
      ...(record.cacheWriteTokens > 0 && { [GenAi.cacheWriteTokens]: record.cacheWriteTokens }),
      ...(record.costKnown && { [AgentwireAttr.costUsd]: record.costUsd }),
    };
    const span = this.tracer.startSpan(
      `chat ${record.model}`,
      { kind: SpanKind.CLIENT, startTime: start, attributes },
      parent.context,
    );
    // A stopped call is not a failure; a provider's message may quote credentials, so only its kind goes out.
    if (record.error === "aborted") span.setAttribute(AgentwireAttr.unfinished, true);
    else if (record.error !== undefined) fail(span, "provider_error");
    span.end(end);
    for (let node: Node | undefined = parent; node; node = node.parent) {
      if (!node.tokens) continue;
      node.tokens.input += record.inputTokens;
      node.tokens.output += record.outputTokens;
    }
  }

  event(event: LoopEvent): void {
    if (this.ended) return;
    if (event.type === "tool_call_update") {
      if (event.status === "start") this.startCall(event);
      else this.endCall(event);
    } else if (event.type === "budget_exceeded") {
      this.root.span.addEvent("agentwire.budget_exceeded", {
        "agentwire.budget.reason": event.reason,
        "agentwire.budget.limit": event.limit,
        "agentwire.budget.observed": event.observed,
      });
    }
  }

  turnSuspended(): void {
    this.finish("waiting_user");
  }

  turnHandedOver(): void {
    // The span ends with the segment; the turn's status stays `running` (another instance goes on).
    this.finish("running");
  }

  turnEnded(status: TurnStatus): void {
    this.finish(status);
  }

  private startCall(event: ToolCallUpdateEvent): void {
    const parent = this.agentOf(event.parent_id, event.depth, callerOf(event.name));
    const held = this.early.get(event.tool_call_id);
    // A call whose own model calls were seen first started no later than the first of them.
    const first = Math.min(this.now(), ...(held ?? []).map((r) => r.startedAt));
    this.openCall(event, parent, Math.max(parent.start, first), false);
    this.flushEarly(event.tool_call_id);
  }

  /** The held provider calls of one call, now that its span is open. */
  private flushEarly(id: string): void {
    const held = this.early.get(id);
    this.early.delete(id);
    for (const record of held ?? []) this.chatSpan(record);
  }

  private endCall(event: ToolCallUpdateEvent): void {
    const id = event.tool_call_id;
    // A call that started in an earlier segment (answered after a suspension) spans this segment.
    const call =
      this.calls.get(id) ??
      this.openCall(
        event,
        this.agentOf(event.parent_id, event.depth, callerOf(event.name)),
        this.startedAt,
        true,
      );
    this.flushEarly(id);
    this.calls.delete(id);
    const subtask = this.subtasks.get(id);
    this.subtasks.delete(id);
    const at = this.now();
    const failed = event.is_error === true;
    if (subtask) this.close(subtask, at, failed ? "subtask_error" : undefined);
    this.close(call, at, failed ? "tool_error" : undefined);
  }

  /** Opens a tool call's span under `parent` and, for run_subtask, its subtask's span under the call. */
  private openCall(
    call: Pick<ToolCallUpdateEvent, "tool_call_id" | "name" | "parent_id" | "depth">,
    parent: Node,
    startTime: number,
    resumed: boolean,
  ): Node {
    const node = this.open(
      `execute_tool ${call.name}`,
      SpanKind.INTERNAL,
      parent,
      {
        [GenAi.operation]: GenAiOperation.executeTool,
        [GenAi.toolName]: call.name,
        [GenAi.toolCallId]: call.tool_call_id,
        [GenAi.toolType]: "function",
        [AgentwireAttr.depth]: call.depth,
        ...(call.parent_id !== null && { [AgentwireAttr.parentId]: call.parent_id }),
        ...(resumed && { [AgentwireAttr.resumed]: true }),
      },
      startTime,
    );
    this.calls.set(call.tool_call_id, node);
    const agent = AGENT_NODES.get(call.name);
    if (agent !== undefined) {
      const subtask = this.open(
        `invoke_agent ${agent}`,
        SpanKind.INTERNAL,
        node,
        { ...this.agent(agent, call.depth + 1), [AgentwireAttr.parentId]: call.tool_call_id },
        startTime,
      );
      this.subtasks.set(call.tool_call_id, subtask);
    }
    return node;
  }

  /** Closes whatever is still open, then the turn's span with its status and token totals. */
  private finish(status: TurnStatus): void {
    if (this.ended) return;
    // Calls whose parent never showed in this segment: under a reopened parent, as agentOf does.
    for (const id of [...this.early.keys()]) this.flushEarly(id);
    this.ended = true;
    const at = this.now();
    for (const node of [...this.subtasks.values(), ...this.calls.values()]) {
      node.span.setAttribute(AgentwireAttr.unfinished, true);
      this.close(node, at);
    }
    this.subtasks.clear();
    this.calls.clear();
    const { span } = this.root;
    span.setAttribute(AgentwireAttr.turnStatus, status);
    if (FAILED.has(status)) fail(span, status);
    this.close(this.root, at);
  }

  /**
   * The span a node at `depth` with this execution-tree `parent_id` hangs under: its subtask (or
   * plan step), else the open tool call it belongs to (create_plan's planner calls and steps), else
   * the turn. A parent started in an earlier segment (resumed after a suspension) is reopened for
   * this segment as a `callerName` call, under the turn: the segment does not know its own parent.
   */
  private agentOf(parentId: string | null, depth: number, callerName: string): Node {
    if (parentId === null) return this.root;
    const open = this.subtasks.get(parentId) ?? this.calls.get(parentId);
    if (open) return open;
    const call = {
      tool_call_id: parentId,
      name: callerName,
      parent_id: null,
      depth: Math.max(0, depth - 1),
    };
    const node = this.openCall(call, this.root, this.startedAt, true);
    return this.subtasks.get(parentId) ?? node;
  }

  /** The attributes of an agent span (the turn or a subtask). */
  private agent(name: string, depth: number): Attributes {
    return {
      [GenAi.operation]: GenAiOperation.invokeAgent,
      [GenAi.agentName]: name,
      [GenAi.provider]: this.turn.provider,
      [GenAi.system]: this.turn.provider,
      [GenAi.requestModel]: this.turn.model,
      [AgentwireAttr.depth]: depth,
    };
  }

  private open(
    name: string,
    kind: SpanKind,
    parent: Node | undefined,
    attributes: Attributes,
    startTime = this.now(),
  ): Node {
    const span = this.tracer.startSpan(
      name,
      { kind, startTime, attributes: { ...this.ids, ...attributes } },
      parent?.context ?? ROOT_CONTEXT,
    );
    const node: Node = { span, start: startTime, context: trace.setSpan(ROOT_CONTEXT, span), parent };
    if (attributes[GenAi.operation] === GenAiOperation.invokeAgent) node.tokens = { input: 0, output: 0 };
    return node;
  }

  /** Ends a node's span at `at`, with its token totals and, given an error kind, status ERROR. */
  private close(node: Node, at: number, errorKind?: string): void {
    if (node.tokens) {
      node.span.setAttribute(GenAi.inputTokens, node.tokens.input);
      node.span.setAttribute(GenAi.outputTokens, node.tokens.output);
    }
    if (errorKind !== undefined) fail(node.span, errorKind);
    node.span.end(at);
  }
}

/** The kind of call a tool call of this name runs under: a plan step's is create_plan, any other a subtask's. */
function callerOf(name: string): string {
  return name === PLAN_STEP ? CREATE_PLAN : RUN_SUBTASK;
}

/** Marks a span failed with a low-cardinality error kind (never a message: those may carry user data). */
function fail(span: Span, kind: string): void {
  span.setAttribute(GenAi.errorType, kind);
  span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
}

/** `clock` made strictly increasing: Date.now may step back (NTP) or repeat within a millisecond. */
function monotonic(clock: () => number): () => number {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const t = clock();
    last = t > last ? t : last + 0.001;
    return last;
  };
}

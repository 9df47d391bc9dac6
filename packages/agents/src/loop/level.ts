import type { ValidateFunction } from "ajv";
import type { TurnBudget } from "../budget/turn-budget.js";
import type { ModelMessage } from "../providers/model-message.js";
import type { ToolSpec } from "../providers/provider-request.js";
import { compileOutputSchema } from "../subtask/compile-output-schema.js";
import { FINISH_SUBTASK, finishSubtaskTool } from "../subtask/finish-subtask-tool.js";
import { RUN_SUBTASK } from "../subtask/run-subtask-tool.js";
import type { ChildLevel } from "../subtask/subtask-parent.js";
import type { Tool } from "../tools/tool.js";
import type { AgentStateEvent, LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import { UsageAccumulator } from "../usage/usage-accumulator.js";
import { linkAbort, shareAbortListener } from "./abortable.js";
import { abortTurn, LEVEL_ENDED } from "./aborted-status.js";
import type { LoopContext } from "./loop-context.js";
import { countTokens, estimateTextTokens } from "./prune-history.js";
import type { RunLevel, RunLoopParams } from "./run-loop-params.js";

/** The running state of one level: everything its steps read and write. */
export type Level = {
  params: RunLoopParams;
  ctx: LoopContext;
  budget: TurnBudget;
  depth: number;
  parentId: string | null;
  /** Fires on the user's stop, a budget breach, or the level's generator being closed. */
  signal: AbortSignal;
  /** The toolbelt as given (minus run_subtask past MAX_DEPTH), which subtasks inherit. */
  inheritable: Tool[];
  /** The inheritable tools' names, once per level (checkpoints, suspensions and ledger records carry them). */
  toolNames: string[];
  tools: Map<string, Tool>;
  specs: ToolSpec[];
  messages: ModelMessage[];
  historyTokens: number;
  fixedTokens: number;
  usage: UsageAccumulator;
  /** The latest non-empty assistant text, partial while streaming. */
  lastText: string;
  iterations: number;
  maxIterations: number;
  finishValidator: ValidateFunction | null;
  state: AgentStateEvent["state"] | null;
  now: () => number;
  /** Hands a text chunk on past the generators when order allows (see RunLoopParams.offer). */
  offer: (event: LoopEvent) => boolean;
  /** Runs a subtask's level on the loop this level runs on, below it (see SubtaskParent). */
  runChild: (child: ChildLevel) => AsyncGenerator<LoopEvent, LoopResult>;
  dispose: () => void;
};

/**
 * Sets up one level that runs on `run` (its subtasks too); a bad output schema is reported by
 * run_subtask before a level exists.
 */
export function createLevel(params: RunLoopParams, run: RunLevel): Level {
  const { ctx } = params;
  const depth = params.depth ?? 0;
  // The level's signal: its own end, the turn's budget, and the caller's (a stop, a parent's end).
  const local = new AbortController();
  const unlink = linkAbort(local, [ctx.budget.signal, params.signal]);
  const inheritable = params.tools.filter(
    (t) => t.name !== FINISH_SUBTASK && !(t.name === RUN_SUBTASK && depth >= ctx.budget.limits.MAX_DEPTH),
  );
  const compiled = params.outputSchema ? compileOutputSchema(params.outputSchema) : null;
  const finishValidator = compiled?.ok ? compiled.validate : null;
  const own = params.outputSchema ? [...inheritable, finishSubtaskTool(params.outputSchema)] : inheritable;
  const specs = own.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const level: Level = {
    params,
    ctx,
    budget: ctx.budget,
    depth,
    parentId: params.parentId ?? null,
    signal: local.signal,
    inheritable,
    toolNames: inheritable.map((t) => t.name),
    tools: new Map(own.map((t) => [t.name, t])),
    specs,
    messages: [],
    historyTokens: 0,
    fixedTokens: estimateTextTokens(params.systemPrompt) + Math.ceil(specsLength(specs) / 4),
    usage: new UsageAccumulator(),
    lastText: "",
    iterations: params.iterationsUsed ?? 0,
    maxIterations: params.maxIterations ?? ctx.budget.limits.MAX_ITERATIONS_PER_LEVEL,
    finishValidator,
    state: null,
    now: ctx.now ?? (() => performance.now()),
    offer: params.offer ?? (depth === 0 ? directOffer(ctx) : decline),
    runChild: (child) =>
      run({
        provider: params.provider,
        model: params.model,
        systemPrompt: child.systemPrompt,
        history: child.history,
        tools: child.tools,
        ctx,
        depth: child.depth,
        parentId: child.parentId,
        signal: local.signal,
        title: child.title,
        ...(child.outputSchema !== undefined && { outputSchema: child.outputSchema }),
        ...(child.operation !== undefined && { operation: child.operation }),
        ...(params.maxTokens !== undefined && { maxTokens: params.maxTokens }),
        ...(params.settings !== undefined && { settings: params.settings }),
        offer: child.offer,
      }),
    dispose: () => {
      unlink();
      abortTurn(local, LEVEL_ENDED);
    },
  };
  // One abort listener for the level's life (it fires in dispose), shared by every wait on the signal.
  shareAbortListener(level.signal);
  for (const m of params.history) appendMessage(level, m);
  return level;
}

const decline = () => false;

/**
 * Each input schema as JSON, in characters. A toolbelt's tools are made anew each turn (the approval
 * gate wraps them), but their schemas are the same objects turn after turn.
 */
const schemaLengths = new WeakMap<object, number>();

/**
 * `JSON.stringify(specs).length` without stringifying every tool's schema for every level: the
 * brackets and commas, and per spec its name, description and cached schema length.
 */
function specsLength(specs: readonly ToolSpec[]): number {
  let length = 2 + Math.max(0, specs.length - 1);
  for (const spec of specs) {
    let schema = schemaLengths.get(spec.inputSchema);
    if (schema === undefined) {
      schema = JSON.stringify(spec.inputSchema).length;
      schemaLengths.set(spec.inputSchema, schema);
    }
    // {"name":…,"description":…,"inputSchema":…}
    length += 39 + JSON.stringify(spec.name).length + JSON.stringify(spec.description).length + schema;
  }
  return length;
}

/** The root's offer: straight to the consumer while it waits for the loop with nothing in flight. */
function directOffer(ctx: LoopContext): (event: LoopEvent) => boolean {
  return (event) => {
    const direct = ctx.direct;
    if (!direct?.ready()) return false;
    direct.deliver(event);
    return true;
  };
}

/** Appends a message produced this turn (not history) and reports it through `ctx.onMessage`. */
export function appendNewMessage(level: Level, message: ModelMessage): void {
  appendMessage(level, message);
  level.params.ctx.onMessage?.(message, { depth: level.depth, parentId: level.parentId });
}

/** Appends to the level's conversation, keeping the running token estimate. */
export function appendMessage(level: Level, message: ModelMessage): void {
  level.messages.push(message);
  level.historyTokens += countTokens(message);
}

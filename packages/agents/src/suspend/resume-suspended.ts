import { runLevel } from "../loop/run-level.js";
import { endEvent } from "../loop/run-tool-calls.js";
import type { ToolModelMessage } from "../providers/model-message.js";
import { subtaskOutcome } from "../subtask/subtask-outcome.js";
import type { Tool } from "../tools/tool.js";
import { truncateResult } from "../tools/truncate-result.js";
import { askDeferred } from "../turn/ask-deferred.js";
import { type CallOutcome, errorOutcome } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { SuspendedLevel, SuspendedState } from "../turn/suspended-state.js";
import { suspensionEvents } from "../turn/suspension-events.js";
import { UsageAccumulator } from "../usage/usage-accumulator.js";
import { resumeApprovedCall } from "./resume-approved-call.js";
import type { ResumeParams } from "./resume-params.js";
import { resolveTools, resumeToolLevel, type ToolLevelRun } from "./resume-tool-level.js";

/**
 * Continues a suspended turn tree: the deepest level gets the answer as its pending call's result and
 * runs on; each level's result becomes its parent's run_subtask result, up to the root. Each level
 * runs at its saved depth and parentage; `end` events close the calls that waited. A tool level (a
 * plan step's node) continues its tool instead, whose result answers the create_plan call above.
 * A level whose parallel sibling calls waited too (`deferred`) asks the next of them before it runs on.
 * An approved call first runs as the deepest level's pending call, and its result is the answer.
 */
export async function* resumeSuspended(p: ResumeParams): AsyncGenerator<LoopEvent, LoopResult> {
  const { state } = p;
  const usage = new UsageAccumulator();
  const now = p.ctx.now ?? (() => performance.now());
  const rootLevel = state.levels[0];
  if (state.version !== 1 || !rootLevel) {
    return { status: "error", text: "", messages: [], usage: usage.snapshot(), error: invalid(state) };
  }
  const last = state.levels.length - 1;
  // The approved call runs first; its `end` carries the time it ran. Every waiting call's `end`
  // counts from the resume plus the time it was open before (`openFor`).
  const startedAt = now();
  try {
    let outcome: CallOutcome;
    if (typeof p.answer === "string") outcome = { type: "result", content: p.answer, isError: false };
    else if ("approved" in p.answer) {
      const ran: ToolLevelRun = yield* runApproved(
        p,
        state.levels[last] as SuspendedLevel,
        p.answer.approved,
      );
      if (ran.usage) usage.merge(ran.usage);
      outcome = ran.outcome;
      if (outcome.type === "suspend") {
        // The tool waits on the user in turn: below the call (its subtask) or as the call itself.
        if (outcome.nested) return yield* suspendAgain(state, last + 1, outcome.nested, rootLevel, usage);
        const again = { ...state, suspension: outcome.suspension };
        return yield* suspended(again, rootLevel, usage);
      }
    } else outcome = { type: "result", content: p.answer.content, isError: p.answer.isError === true };
    for (let i = last; i >= 0; i--) {
      const level = state.levels[i] as SuspendedLevel;
      if (outcome.type === "suspend") break;
      const cut = truncateResult(outcome.content, p.ctx.budget.limits.MAX_TOOL_RESULT_BYTES);
      p.ctx.budget.addResultBytes(cut.bytes);
      const isError: boolean = outcome.type === "result" && outcome.isError;
      const nest = { parentId: level.parentId, depth: level.depth, now };
      const openedAt = startedAt - (p.openFor?.[level.pendingCall.id] ?? 0);
      yield endEvent(nest, level.pendingCall, cut.text, isError, openedAt);
      if (level.tool) {
        // A tool's waiting subtask (a plan step): the tool goes on, and its result answers the level above.
        const owner = state.levels[i - 1];
        const ran: ToolLevelRun = yield* resumeToolLevel(p, level, owner, { ok: !isError, text: cut.text });
        if (ran.usage) usage.merge(ran.usage);
        outcome = ran.outcome;
        if (outcome.type === "suspend" && outcome.nested) {
          return yield* suspendAgain(state, i, outcome.nested, rootLevel, usage);
        }
        if (outcome.type === "suspend")
          outcome = errorOutcome(`${level.tool.name} asked again without a saved state`);
        continue;
      }
      const answered: ToolModelMessage = {
        role: "tool",
        toolCallId: level.pendingCall.id,
        name: level.pendingCall.name,
        content: cut.text,
        ...(isError && { isError: true }),
      };
      // A parallel sibling asked too: it is asked now; the level runs on once all are answered.
      const next = askDeferred(state, i, answered);
      if (next) return yield* suspended(next, rootLevel, usage);
      const results = inCallOrder(level, answered);
      // The results are new messages of this level: report them like the loop reports its own.
      for (const m of results) p.ctx.onMessage?.(m, { depth: level.depth, parentId: level.parentId });
      const result = yield* runLevel({
        provider: p.provider,
        model: p.model ?? state.model,
        systemPrompt: level.systemPrompt,
        history: [...level.messages, ...results],
        tools: resolveTools(p.tools, level.toolNames),
        ctx: p.ctx,
        depth: level.depth,
        parentId: level.parentId,
        maxIterations: level.maxIterations,
        iterationsUsed: level.iterationsUsed,
        ...(p.signal !== undefined && { signal: p.signal }),
        ...(p.maxTokens !== undefined && { maxTokens: p.maxTokens }),
        ...(p.settings !== undefined && { settings: p.settings }),
        ...(level.outputSchema !== undefined && { outputSchema: level.outputSchema }),
        ...(level.title !== undefined && { title: level.title }),
        ...(level.operation !== undefined && { operation: level.operation }),
        ...(i === 0 && p.context !== undefined && { context: p.context }),
      });
      usage.merge(result.usage);
      if (i === 0) return { ...result, usage: usage.snapshot() };
      if (result.status === "waiting_user" && result.pending) {
        return yield* suspendAgain(state, i, result.pending, rootLevel, usage);
      }
      outcome = subtaskOutcome(result, level.title ?? "subtask");
    }
  } finally {
    p.ctx.budget.dispose();
  }
  return {
    status: "error",
    text: "",
    messages: rootLevel.messages,
    usage: usage.snapshot(),
    error: invalid(state),
  };
}

/** Runs the approved call of a state that asked for approval; any other state has nothing to approve. */
async function* runApproved(
  p: ResumeParams,
  level: SuspendedLevel,
  tool: Tool,
): AsyncGenerator<LoopEvent, ToolLevelRun> {
  const s = p.state.suspension;
  if (s.kind !== "approval") return { outcome: errorOutcome(`${tool.name} was not waiting for approval`) };
  return yield* resumeApprovedCall(p, level, tool, s.args);
}

/** A level asked again: the levels above keep waiting on their own pending calls. */
function* suspendAgain(
  state: SuspendedState,
  i: number,
  below: SuspendedState,
  rootLevel: SuspendedLevel,
  usage: UsageAccumulator,
): Generator<LoopEvent, LoopResult> {
  const pending: SuspendedState = { ...below, levels: [...state.levels.slice(0, i), ...below.levels] };
  return yield* suspended(pending, rootLevel, usage);
}

/** The turn waits again with `pending`: its question goes out. */
function* suspended(
  pending: SuspendedState,
  rootLevel: SuspendedLevel,
  usage: UsageAccumulator,
): Generator<LoopEvent, LoopResult> {
  yield* suspensionEvents(pending);
  return { status: "waiting_user", text: "", messages: rootLevel.messages, usage: usage.snapshot(), pending };
}

/** The saved results plus the answered one, in the order of the assistant message's calls. */
function inCallOrder(level: SuspendedLevel, answered: ToolModelMessage): ToolModelMessage[] {
  const all = [...level.results, answered];
  const assistant = level.messages.findLast((m) => m.role === "assistant" && m.toolCalls?.length);
  const order = assistant?.role === "assistant" ? (assistant.toolCalls ?? []).map((c) => c.id) : [];
  return all.sort((a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId));
}

function invalid(state: SuspendedState): LoopResult["error"] {
  return { code: "internal", message: `unreadable suspended state (version ${String(state.version)})` };
}

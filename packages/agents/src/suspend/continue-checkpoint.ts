import type { LoopCommon } from "../loop/loop-common.js";
import { runLevel } from "../loop/run-level.js";
import { endEvent, SKIPPED, startEvent } from "../loop/run-tool-calls.js";
import type { ToolModelMessage } from "../providers/model-message.js";
import type { ToolCallEvent } from "../providers/provider-event.js";
import { RUN_SUBTASK } from "../subtask/run-subtask-tool.js";
import { subtaskOutcome } from "../subtask/subtask-outcome.js";
import type { Tool } from "../tools/tool.js";
import { truncateResult } from "../tools/truncate-result.js";
import type { Checkpoint, CheckpointLevel } from "../turn/checkpoint.js";
import { openCalls } from "../turn/checkpoint-tree.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { DeferredCall, SuspendedState } from "../turn/suspended-state.js";
import { suspensionEvents } from "../turn/suspension-events.js";
import { UsageAccumulator } from "../usage/usage-accumulator.js";
import { resolveTools } from "./resume-tool-level.js";

/**
 * A turn continued from its last checkpoint. Without `after` the process that ran it died: calls in
 * flight may have run. `after: "budget"`: the turn stopped at a limit (see withFreshIterations), so
 * the calls the checkpoint leaves open never started, and they all run.
 */
export type CheckpointFrom = {
  kind: "checkpoint";
  checkpoint: Checkpoint;
  after?: "budget";
  /** Defaults to the model the turn was started with. */
  model?: string;
};

/** What continuing needs: the checkpoint, and the same provider, root toolbelt and turn context. */
export type ContinueParams = LoopCommon & Omit<CheckpointFrom, "kind">;

/** The result of a call that was running when the process died and cannot safely run twice. */
export const RESTARTED = "the server restarted before this call finished";

/** True when a call in flight at a crash may simply run again: declared so, or of the read (`safe`) class. */
export function isIdempotent(tool: Tool | undefined): boolean {
  return tool?.idempotent ?? tool?.permissionClass === "safe";
}

/**
 * Continues a turn from its last checkpoint after the process that ran it died, level by level: the
 * calls of a level's last assistant message that had not finished are continued as follows. A
 * subtask with a checkpoint of its own continues from it (its result answers the call); one without
 * had finished no model call yet and runs again from its start; a call of an idempotent tool runs
 * again; any other call gets an error result (RESTARTED, its `end` yielded here) and the model
 * decides. Then each level goes on as before the crash: the model call that was in flight is made again.
 * A continued subtask that asks the user suspends the turn as it would have before the crash (the
 * batch's calls not yet run are skipped, as beside any call that waits). With `after: "budget"` it
 * continues the state a limit stopped the turn at (see CheckpointFrom).
 */
export function continueCheckpoint(p: ContinueParams): AsyncGenerator<LoopEvent, LoopResult> {
  return continueLevel(p, p.checkpoint.root);
}

async function* continueLevel(
  p: ContinueParams,
  level: CheckpointLevel,
): AsyncGenerator<LoopEvent, LoopResult> {
  const fresh = p.after === "budget";
  const tools = resolveTools(p.tools, level.toolNames);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const last = level.messages.at(-1);
  const open = new Set(openCalls(level));
  const calls = last?.role === "assistant" ? (last.toolCalls ?? []).filter((c) => open.has(c.id)) : [];
  const usage = new UsageAccumulator();
  const again: ToolCallEvent[] = [];
  const answered: ToolModelMessage[] = [];
  const now = p.ctx.now ?? (() => performance.now());
  const nest = { parentId: level.parentId, depth: level.depth, now };
  const { nested: _, ...own } = level;
  const waiting: DeferredCall[] = [];
  for (const call of calls) {
    const below = level.nested?.[call.id];
    if (call.name === RUN_SUBTASK && below) {
      const startedAt = now();
      const result = yield* continueLevel(p, below);
      usage.merge(result.usage);
      const title = below.title ?? "subtask";
      const outcome = subtaskOutcome(result, title);
      if (outcome.type === "suspend") {
        waiting.push({ call: { id: call.id, name: call.name }, ...outcome });
        continue;
      }
      const settled = { content: outcome.content, isError: outcome.type === "result" && outcome.isError };
      const cut = truncateResult(settled.content, p.ctx.budget.limits.MAX_TOOL_RESULT_BYTES);
      p.ctx.budget.addResultBytes(cut.bytes);
      yield endEvent(nest, call, cut.text, settled.isError, startedAt);
      answered.push(toolResult(call, cut.text, settled.isError));
      // Its result is durable now, as the batch's finished calls are in the loop.
      yield { type: "checkpoint", level: { ...own, results: [...level.results, ...answered] } };
    } else if (fresh || call.name === RUN_SUBTASK || isIdempotent(byName.get(call.name))) {
      again.push({ type: "tool-call", id: call.id, name: call.name, args: call.args });
    } else {
      yield endEvent({ ...nest, now: () => 0 }, call, RESTARTED, true, 0);
      answered.push(toolResult(call, RESTARTED, true));
    }
  }
  if (waiting.length > 0) {
    // Not run: skipped as beside any call that waits on the user (started first where a budget's
    // continuation finds them never started).
    for (const call of again) {
      if (fresh) yield startEvent(nest, call);
      yield endEvent(nest, call, SKIPPED, true, now());
      answered.push(toolResult(call, SKIPPED, true));
    }
    for (const m of answered) p.ctx.onMessage?.(m, { depth: level.depth, parentId: level.parentId });
    const pending = suspendedLevel(p, own, [...level.results, ...answered], waiting);
    if (level.depth === 0) yield* suspensionEvents(pending);
    return {
      status: "waiting_user",
      text: "",
      messages: level.messages,
      usage: usage.snapshot(),
      pending,
    };
  }
  // New messages of the level, reported like the loop reports its own (the server stores the root's).
  for (const m of answered) p.ctx.onMessage?.(m, { depth: level.depth, parentId: level.parentId });
  const result = yield* runLevel({
    provider: p.provider,
    model: p.model ?? p.checkpoint.model,
    systemPrompt: level.systemPrompt,
    history: [...level.messages, ...level.results, ...answered],
    tools,
    ctx: p.ctx,
    depth: level.depth,
    parentId: level.parentId,
    maxIterations: level.maxIterations,
    iterationsUsed: level.iterationsUsed,
    ...(again.length > 0 && { pendingCalls: again }),
    ...(p.signal !== undefined && { signal: p.signal }),
    ...(p.maxTokens !== undefined && { maxTokens: p.maxTokens }),
    ...(p.settings !== undefined && { settings: p.settings }),
    ...(level.outputSchema !== undefined && { outputSchema: level.outputSchema }),
    ...(level.title !== undefined && { title: level.title }),
    ...(level.operation !== undefined && { operation: level.operation }),
    ...(level.depth === 0 && p.context !== undefined && { context: p.context }),
  });
  usage.merge(result.usage);
  return { ...result, usage: usage.snapshot() };
}

/**
 * The level waiting on its continued subtasks' questions, as a batch whose subtask asked stores it:
 * the first waiting call pending (the levels below it after this one), the others deferred.
 */
function suspendedLevel(
  p: ContinueParams,
  own: Omit<CheckpointLevel, "nested">,
  results: ToolModelMessage[],
  waiting: DeferredCall[],
): SuspendedState {
  const [first, ...deferred] = waiting as [DeferredCall, ...DeferredCall[]];
  return {
    version: 1,
    model: p.model ?? p.checkpoint.model,
    toolCallId: first.nested?.toolCallId ?? first.call.id,
    suspension: first.suspension,
    levels: [
      { ...own, results, pendingCall: first.call, ...(deferred.length > 0 && { deferred }) },
      ...(first.nested?.levels ?? []),
    ],
  };
}

function toolResult(call: { id: string; name: string }, content: string, isError: boolean): ToolModelMessage {
  return { role: "tool", toolCallId: call.id, name: call.name, content, ...(isError && { isError: true }) };
}

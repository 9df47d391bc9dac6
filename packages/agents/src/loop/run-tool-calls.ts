import type { ToolModelMessage } from "../providers/model-message.js";
import type { ToolCallEvent } from "../providers/provider-event.js";
import { RUN_SUBTASK } from "../subtask/run-subtask-tool.js";
import { truncateResult } from "../tools/truncate-result.js";
import { type CallOutcome, errorOutcome, stoppedOutcome } from "../turn/call-outcome.js";
import type { LoopEvent, ToolCallUpdateEvent } from "../turn/loop-event.js";
import type { DeferredCall, SuspendedState } from "../turn/suspended-state.js";
import type { Suspension } from "../turn/suspension.js";
import { EventChannel } from "./event-channel.js";
import type { Level } from "./level.js";
import { checkpointEvent } from "./level-state.js";
import { runOneCall } from "./run-one-call.js";

/** What a batch of tool calls left: results in the model's call order, and how the level goes on. */
export type BatchOutcome = {
  /** One per call, in call order; the pending call (if any) has none. */
  results: ToolModelMessage[];
  finish?: { value: unknown };
  suspended?: { call: ToolCallEvent; suspension: Suspension; nested: SuspendedState | null };
  /** Other calls that also wait on the user (asked after `suspended`, in call order); they have no result. */
  deferred?: DeferredCall[];
};

/** The result of a call of a batch not run because a sibling waits on the user first. */
export const SKIPPED = "not run: the turn paused for the user's answer first; call it again if still needed";

/**
 * Runs one model turn's tool calls in the model's order: consecutive parallel-safe calls run together
 * (tree-wide at most MAX_PARALLEL_PER_TURN running, see ParallelPermits), and a call that is not
 * parallel-safe is a barrier: it starts once all before it have settled, and all after it wait for
 * it (so `[write_file x, read_file x]` reads what was written). Every call gets one `start` up front and one
 * `end` when it settles, except a call that waits on the user, whose `end` comes on resume. The first
 * call to wait is the pending one; parallel siblings that wait too are deferred (asked in turn after it).
 */
export async function* runToolCalls(
  level: Level,
  calls: ToolCallEvent[],
): AsyncGenerator<LoopEvent, BatchOutcome> {
  const outcomes: CallOutcome[] = new Array(calls.length);
  let pendingIndex = -1;
  const channel = new EventChannel<LoopEvent>(level.offer);
  const push = (event: LoopEvent) => channel.push(event);
  for (const call of calls) yield startEvent(level, call);

  const settle = (i: number, settled: CallOutcome) => {
    const call = calls[i] as ToolCallEvent;
    if (settled.type === "suspend") {
      if (pendingIndex === -1) pendingIndex = i;
      outcomes[i] = settled;
      return;
    }
    const cut = truncateResult(settled.content, level.budget.limits.MAX_TOOL_RESULT_BYTES);
    level.budget.addResultBytes(cut.bytes);
    outcomes[i] = settled.type === "finish" ? settled : { ...settled, content: cut.text };
    push(endEvent(level, call, cut.text, settled.type === "result" && settled.isError, startedAt[i] ?? 0));
    // With others still running, the finished call's result is durable now (a subtask's above all).
    if (calls.length > 1) push(checkpointEvent(level, finishedResults(calls, outcomes)));
  };
  const startedAt: number[] = new Array(calls.length);
  const runAt = async (i: number) => {
    startedAt[i] = level.now();
    settle(i, await runOneCall(level, calls[i] as ToolCallEvent, push));
  };

  const runBatch = async () => {
    for (const group of callGroups(level, calls)) {
      // A call waiting on the user, or a stop, holds back every later group: they wait for what came first.
      if (pendingIndex !== -1 || level.signal.aborted) {
        for (const i of group) {
          startedAt[i] = level.now();
          settle(
            i,
            pendingIndex !== -1 ? errorOutcome(SKIPPED) : stoppedOutcome(level.budget.breach !== null),
          );
        }
        continue;
      }
      // A group starts at once; each call waits for a tree-wide permit (MAX_PARALLEL_PER_TURN) in runOneCall.
      await Promise.all(group.map(runAt));
    }
  };
  // This level's own call (a subtask's) gives its permit back while the calls below it run.
  const own = level.ctx.permits.find(level.parentId);
  const work = own ? own.lend(runBatch, level.signal) : runBatch();
  let bug: unknown = null;
  work.then(
    () => channel.close(),
    (error: unknown) => {
      bug = error;
      channel.close();
    },
  );
  yield* channel.drain();
  if (bug !== null) throw bug;
  return collect(calls, outcomes, pendingIndex);
}

/** The batch's indexes cut into runs: each parallel-safe stretch together, each other call alone, in call order. */
export function callGroups(level: Pick<Level, "tools">, calls: ToolCallEvent[]): number[][] {
  const groups: number[][] = [];
  let stretch: number[] | null = null;
  calls.forEach((call, i) => {
    if (level.tools.get(call.name)?.parallelSafe === false) {
      stretch = null;
      groups.push([i]);
    } else if (stretch) stretch.push(i);
    else {
      stretch = [i];
      groups.push(stretch);
    }
  });
  return groups;
}

/** The results of the batch's calls finished so far, in call order. */
function finishedResults(calls: ToolCallEvent[], outcomes: CallOutcome[]): ToolModelMessage[] {
  const out: ToolModelMessage[] = [];
  outcomes.forEach((outcome, i) => {
    if (outcome.type === "result") out.push(resultMessage(calls[i] as ToolCallEvent, outcome));
  });
  return out;
}

/** A settled call's result as the model reads it. */
function resultMessage(call: ToolCallEvent, outcome: Exclude<CallOutcome, { type: "suspend" }>) {
  const message: ToolModelMessage = {
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    content: outcome.content,
  };
  if (outcome.type === "result" && outcome.isError) message.isError = true;
  return message;
}

function collect(calls: ToolCallEvent[], outcomes: CallOutcome[], pendingIndex: number): BatchOutcome {
  const batch: BatchOutcome = { results: [] };
  outcomes.forEach((outcome, i) => {
    const call = calls[i] as ToolCallEvent;
    if (i === pendingIndex && outcome.type === "suspend") {
      batch.suspended = { call, suspension: outcome.suspension, nested: outcome.nested };
      return;
    }
    if (outcome.type === "suspend") {
      const { suspension, nested } = outcome;
      const waiting = { call: { id: call.id, name: call.name }, suspension, nested };
      batch.deferred = [...(batch.deferred ?? []), waiting];
      return;
    }
    if (outcome.type === "finish" && !batch.finish) batch.finish = { value: outcome.value };
    batch.results.push(resultMessage(call, outcome));
  });
  return batch;
}

/** The `start` of one call. */
export function startEvent(
  level: Pick<Level, "parentId" | "depth">,
  call: ToolCallEvent,
): ToolCallUpdateEvent {
  const event: ToolCallUpdateEvent = {
    type: "tool_call_update",
    tool_call_id: call.id,
    name: call.name,
    status: "start",
    parent_id: level.parentId,
    depth: level.depth,
  };
  if (call.args !== undefined) event.args = call.args;
  else if (call.invalidArgs) event.args = call.invalidArgs.raw;
  const title = (call.args as { title?: unknown } | undefined)?.title;
  if (call.name === RUN_SUBTASK && typeof title === "string") event.title = title;
  return event;
}

/** The `end` of one call. */
export function endEvent(
  level: Pick<Level, "parentId" | "depth" | "now">,
  call: { id: string; name: string },
  result: string,
  isError: boolean,
  startedAt: number,
): ToolCallUpdateEvent {
  return {
    type: "tool_call_update",
    tool_call_id: call.id,
    name: call.name,
    status: "end",
    result,
    is_error: isError,
    duration_ms: Math.max(0, Math.round((level.now() - startedAt) * 1000) / 1000),
    parent_id: level.parentId,
    depth: level.depth,
  };
}

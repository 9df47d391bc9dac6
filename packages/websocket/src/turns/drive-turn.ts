import {
  abortedStatus,
  createLoopContext,
  type LoopContext,
  type LoopEvent,
  type LoopResult,
  type ModelMessage,
  UsageAccumulator,
  type WorkflowFrame,
} from "@agentwire-chat/agents";
import {
  endTurn,
  queueWrite,
  settleWrites,
  storeRow,
  suspendTurn,
  type TurnResult,
  totalUsage,
} from "./end-turn.js";
import { handingOver, handOverTurn } from "./hand-over-turn.js";
import { reportToolCrash } from "./report-tool-crash.js";
import { rootRow } from "./root-row.js";
import { steerInbox } from "./steer-turn.js";
import { checkpointStore } from "./store-checkpoint.js";
import { localCoordination } from "./turn-coordination.js";
import type { TurnSegment } from "./turn-segment.js";

/** What a turn's source yields: the agent loop's events, or a workflow run's job and node updates. */
export type TurnEvent = LoopEvent | WorkflowFrame;

/** How a turn's source ended; `rowError` is stored on the turn's row without an `error` frame. */
export type TurnSourceResult = LoopResult & Pick<TurnResult, "rowError">;

/** The events of one turn segment: the agent loop (chat), a media generation or a workflow run. */
export type TurnSource = AsyncGenerator<TurnEvent, TurnSourceResult>;

/**
 * Builds the turn's source (toolbelt, history...) and returns it unstarted; the driver iterates it
 * directly, so a chunk passes through no wrapper generator of the driver's own.
 */
export type TurnStart = (ctx: LoopContext) => Promise<TurnSource>;

/** How a route's turns may be driven. */
export type DriveOptions = {
  /** False for a route that keeps no checkpoint (media, workflows): shutdown interrupts it, never hands it over. */
  continuable?: boolean;
};

/**
 * Runs one segment of a turn on any route: adds every event to the tree and appends it to the
 * thread's frame log, stores root-level rows as they happen and one ledger row per provider call,
 * holds the turn's one budget (its wall-clock timer included) and reports its breach once, and at
 * the end suspends the turn or ends it (final message, tree, usage, status, the one `done`), or
 * hands it over to another instance (a rolling deploy). Never throws.
 */
export function driveTurn(run: TurnSegment, start: TurnStart, options: DriveOptions = {}): Promise<void> {
  run.turn.continuable = options.continuable ?? true;
  const driving = drive(run, start);
  run.turn.driving = driving;
  return driving;
}

async function drive(run: TurnSegment, start: TurnStart): Promise<void> {
  const { turn, repos, tree, observer } = run;
  let finalAssistant: Extract<ModelMessage, { role: "assistant" }> | undefined;
  const ctx = createLoopContext(run.limits, {
    ...(run.budgetUsed !== undefined && { used: run.budgetUsed }),
    ...(run.spend?.allowance() && { spend: run.spend.allowance() }),
    onLlmCall: (call) => {
      run.spend?.add(call.costUsd);
      queueWrite(run, () => repos.llmCalls.record(turn.userId, turn.threadId, turn.turnId, call));
      observer?.llmCall(call);
    },
    onMessage: (message, where) => {
      if (where.depth !== 0 || handingOver(turn)) return;
      // The root's last answer is stored at the end, with the tree, usage and status.
      if (message.role === "assistant" && !message.toolCalls?.length) {
        finalAssistant = message;
        return;
      }
      queueWrite(run, () => storeRow(run, rootRow(message, turn.turnId, run.provider, run.model)));
    },
  });
  ctx.onToolCrash = (crash) => reportToolCrash(run, crash);
  ctx.steer = steerInbox(run, run.coordination !== localCoordination);
  const checkpoint = checkpointStore(run, ctx);
  const relay = (event: TurnEvent) => {
    // Handing over: what the stopping loop still says (cut calls, their checkpoints) is not the
    // turn's; the instance that continues it goes on from the last checkpoint stored before.
    if (turn.abort.signal.aborted && handingOver(turn)) return;
    if (event.type === "checkpoint") return checkpoint(event.level);
    // A workflow's job and node updates are its own progress: no tool call of the tree, no operation.
    if (event.type !== "job_update" && event.type !== "node_update") {
      tree.add(event);
      observer?.event(event);
    }
    turn.emit(event);
    // The thread list shows the latest line of a turn that runs while its user is away.
    if (event.type === "progress_update")
      run.threadStates?.changed({
        userId: turn.userId,
        threadId: turn.threadId,
        state: "running",
        progress: event.message,
      });
  };
  // Text chunks reach the log straight from the provider's read while the driver waits for the loop
  // with no write pending: every event before them has been handled then, so none is overtaken.
  let parked = false;
  ctx.direct = { ready: () => parked && run.writes === undefined, deliver: relay };
  // Calls the server's abort cuts short (shutdown, lost lease) are stored `interrupted`, not failed.
  const onAbort = () => {
    if (abortedStatus(turn.abort.signal) === "interrupted" && !handingOver(turn)) tree.interrupt();
  };
  if (turn.abort.signal.aborted) onAbort();
  else turn.abort.signal.addEventListener("abort", onAbort, { once: true });
  let result: TurnSourceResult;
  try {
    const loop = await start(ctx);
    for (;;) {
      parked = true;
      const next = await loop.next();
      parked = false;
      if (next.done) {
        result = next.value;
        break;
      }
      const event = next.value;
      if (run.writes) await settleWrites(run);
      // What asks the user waits in the log until its suspension is stored (suspendTurn releases it).
      if (event.type === "question" || event.type === "tool_approval_request") turn.log.hold(turn.threadId);
      relay(event);
    }
  } catch (error) {
    parked = false;
    run.logger.error({ err: error }, "turn failed");
    run.writes = undefined;
    const usage = new UsageAccumulator().snapshot();
    result = { status: "error", text: finalAssistant?.text ?? "", messages: [], usage, error: internal };
  }
  turn.abort.signal.removeEventListener("abort", onAbort);
  ctx.budget.dispose();
  if (handingOver(turn)) return handOverTurn(run);
  // The breach is reported once per turn: the agent loop reports its own as it stops; a source that
  // only watches the budget's signal (media, workflows) has it reported here.
  const breach = result.status === "budget_exceeded" ? ctx.budget.claimReport() : null;
  if (breach) relay({ type: "budget_exceeded", ...breach });
  if (result.status === "waiting_user" && result.pending) {
    try {
      await suspendTurn(run, {
        version: 1,
        state: result.pending,
        tree: tree.snapshot(),
        usage: totalUsage(run, result.usage),
        budgetUsed: ctx.budget.used,
        provider: run.provider,
        model: run.model,
        chatContext: run.chatContext,
        memoryEnabled: run.memoryEnabled,
        text: result.text,
        suspendedAt: Date.now(),
      });
      observer?.turnSuspended?.();
      return;
    } catch (error) {
      run.logger.error({ err: error }, "could not store the suspended turn");
      result = { ...result, status: "error", error: internal };
    }
  }
  // A suspension with nothing to resume from cannot wait: it ends as an abort would.
  const status = result.status === "waiting_user" ? abortedStatus(turn.abort.signal) : result.status;
  await endTurn(run, { ...result, status }, finalAssistant?.text ?? result.text);
}

const internal = { code: "internal" as const, message: "internal error" };

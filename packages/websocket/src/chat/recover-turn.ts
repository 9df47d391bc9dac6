import { type LoopContext, runAgentLoop } from "@agentwire-chat/agents";
import { RESTART_DETAIL } from "@agentwire-chat/protocol";
import {
  type FrameLog,
  type Repositories,
  readTurnCheckpoint,
  readTurnStart,
  type TurnCheckpoint,
  type TurnRow,
  type TurnStartRecord,
} from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import type { ActiveTurn } from "../turns/active-turn.js";
import { driveWhenAdmitted } from "../turns/admit-turn.js";
import { driveTurn } from "../turns/drive-turn.js";
import { storeRow } from "../turns/end-turn.js";
import { partialAnswer, rebuildTurn } from "../turns/rebuild-turn.js";
import type { RecoveryCause } from "../turns/recover-turns.js";
import { restartMarkers } from "../turns/restart-markers.js";
import { localCoordination } from "../turns/turn-coordination.js";
import { type TurnSegment, turnSegmentOf } from "../turns/turn-segment.js";
import type { ChatServices } from "./chat-services.js";
import { type ApprovedPlan, repoPlanStore } from "./plan-tools.js";
import { currentContextReport } from "./resume-turn.js";
import { chatLoopStart } from "./run-chat-agent.js";
import { turnToolbelt } from "./turn-toolbelt.js";

/** What a turn runs with, from its checkpoint or, before its first one, from its start record. */
type RunsWith = TurnStartRecord["start"];

/** No socket started the continued turn: client UI tools find none under this id. */
const NO_CONNECTION = "recovered";

/**
 * Continues, in this process, a chat turn whose process died (this one's predecessor, or with Redis a
 * dead instance whose lease lapsed), from the checkpoint its frame log stored: the same turn and
 * thread log (its frames follow the stored ones), its tree rebuilt from them, usage and budget
 * carried over. A turn cut off before its first checkpoint (still queued, or in its first model
 * call) runs again from its user message, as its start record says. The text the model streamed of
 * the call in flight is kept as an `interrupted` row (every character a client saw is stored), then
 * `agent_state resumed`, an `attempt` start for each subtask cut mid-stream (its cut text an attempt
 * of its node), then the loop goes on. False (nothing done) with neither a checkpoint nor a
 * start record, past `maxRecoveries`, when the turn's provider (or its approved plan) is gone, or
 * when another instance holds the thread's lease: the caller ends the turn as interrupted. A turn its
 * instance handed over (a rolling deploy) is neither bounded nor counted: it did not crash anything.
 */
export async function recoverTurn(
  chat: ChatServices,
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  row: TurnRow,
  maxRecoveries: number,
  cause: RecoveryCause = {},
): Promise<boolean> {
  const counted = cause.handedOver !== true;
  if (counted && row.recoveries >= maxRecoveries) return false;
  const saved = readTurnCheckpoint(row.checkpoint);
  const runsWith: RunsWith | undefined = saved ?? readTurnStart(row.checkpoint);
  if (!runsWith) return false;
  const provider = chat.providers.get(runsWith.provider);
  if (!provider) return false;
  const plan = saved ? undefined : await approvedPlan(repos, row, runsWith);
  if (plan === null) return false;
  const turn = chat.turns.start(log, row.threadId, row.userId, row.id);
  if (!turn) return false;
  const coordination = chat.coordination ?? localCoordination;
  let claimed = false;
  let run: TurnSegment;
  try {
    // With Redis: the thread's lease, renewed while the turn runs here, so no other instance takes it too.
    claimed = await coordination.claim(row.threadId, row.id, () => turn.abort.abort("lease_lost"));
    if (!claimed) {
      chat.turns.finish(turn);
      return false;
    }
    run = await prepare(chat, log, repos, logger, row, runsWith, saved, turn, counted);
  } catch (error) {
    // Not left registered: the turn is ended as interrupted instead, and the thread takes new turns.
    chat.turns.finish(turn);
    turn.status = "error";
    if (claimed) await coordination.release(row.threadId, row.id).catch(() => undefined);
    throw error;
  }
  const fromCheckpoint = async (ctx: LoopContext, saved: TurnCheckpoint) => {
    const scope = {
      userId: row.userId,
      threadId: row.threadId,
      chatContext: saved.chatContext,
      connectionId: NO_CONNECTION,
      provider: saved.provider,
      model: saved.model,
    };
    const belt = await turnToolbelt(chat, scope, saved.memoryEnabled, run.logger, repos);
    if (belt.guidance !== undefined) ctx.guidance = belt.guidance;
    const context = await currentContextReport(repos, row.userId, row.threadId, chat, ctx);
    return runAgentLoop({
      ...(context && { context }),
      provider,
      tools: belt.tools,
      ctx,
      from: { kind: "checkpoint", checkpoint: saved.state, model: saved.model },
      signal: turn.abort.signal,
    });
  };
  const start = saved
    ? (ctx: LoopContext) => fromCheckpoint(ctx, saved)
    : chatLoopStart(chat, run, {
        provider,
        connectionId: NO_CONNECTION,
        frames: log,
        rerun: true,
        ...(plan && { approvedPlan: plan }),
      });
  // Before every new turn, yet not past the server's limits: a dead instance's turns all continue
  // at once, and the streams already running here must keep their pace.
  driveWhenAdmitted(run, chat.admission?.reserveAhead(row.userId), () => driveTurn(run, start));
  return true;
}

/** The approved plan a turn started with (undefined: none), or null when it is no longer stored. */
async function approvedPlan(
  repos: Repositories,
  row: TurnRow,
  runsWith: RunsWith,
): Promise<ApprovedPlan | undefined | null> {
  if (runsWith.planId === undefined) return undefined;
  const plan = await repos.plans.get(row.userId, runsWith.planId);
  if (!plan || plan.threadId !== row.threadId) return null;
  return { plan: plan.plan, store: repoPlanStore(repos, row.userId, row.threadId, plan.chatContext) };
}

/**
 * The continued turn's run, its tree and usage rebuilt from the log and ledger; counts the
 * recovery, closes the cut model call's text as an interrupted row and says `resumed`, all in one
 * commit before any new work.
 */
async function prepare(
  chat: ChatServices,
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  row: TurnRow,
  runsWith: RunsWith,
  saved: TurnCheckpoint | undefined,
  turn: ActiveTurn,
  counted: boolean,
): Promise<TurnSegment> {
  // The log's claim, the rebuild's reads and the recovery's count, in one wait (a takeover is mostly
  // round trips). Counted before any work: a turn that crashes the server again is bounded.
  const [, { frames, tree, usage }] = await Promise.all([
    log.claim(row.threadId),
    rebuildTurn(log, repos, row),
    counted && repos.turns.update(row.userId, row.id, { recoveries: row.recoveries + 1 }),
  ]);
  const run = turnSegmentOf(chat, turn, repos, logger, {
    provider: runsWith.provider,
    model: runsWith.model,
    chatContext: runsWith.chatContext,
    memoryEnabled: runsWith.memoryEnabled,
    tree,
    usageBefore: usage,
    ...(saved && { budgetUsed: saved.budgetUsed, checkpoint: saved.state }),
    resumed: true,
  });
  const partial = partialAnswer(frames);
  if (partial) {
    const who = { provider: runsWith.provider, model: runsWith.model };
    await storeRow(run, {
      role: "assistant",
      content: partial,
      status: "interrupted",
      turnId: row.id,
      ...who,
    });
  }
  turn.emit({
    type: "agent_state",
    state: "resumed",
    detail: saved ? RESTART_DETAIL.continues : RESTART_DETAIL.rerun,
  });
  // Each subtask cut mid-stream says so before it streams again: its cut text is an attempt of its node.
  for (const marker of saved ? restartMarkers(frames, saved.state) : []) {
    run.tree.add(marker);
    turn.emit(marker);
  }
  await log.flush();
  if (counted) run.logger.warn({ recoveries: row.recoveries + 1 }, "turn continues after a restart");
  else run.logger.info("turn continues after its instance handed it over");
  return run;
}

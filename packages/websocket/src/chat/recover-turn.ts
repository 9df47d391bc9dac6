import { type LoopContext, type Provider, runAgentLoop } from "@agentwire-chat/agents";
import { AgentwireError, RESTART_DETAIL, type ServerFrame } from "@agentwire-chat/protocol";
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
import { storeRow } from "../turns/end-turn.js";
import { openTurn, type TurnOpening } from "../turns/open-turn.js";
import { partialAnswer, rebuildTurn } from "../turns/rebuild-turn.js";
import type { RecoveryCause } from "../turns/recover-turns.js";
import { restartMarkers } from "../turns/restart-markers.js";
import { checkSpend } from "../turns/spend-limits.js";
import type { TurnSegment } from "../turns/turn-segment.js";
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
 * Recovers, in this process, a chat turn whose process died (this one's predecessor, or with Redis a
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
  let frames: ServerFrame[] = [];
  const opening: TurnOpening = {
    verb: counted ? "recover" : "hand over",
    log,
    repos,
    threadId: row.threadId,
    userId: row.userId,
    turnId: row.id,
    logger,
    // Before every new turn, yet not past the server's limits: a dead instance's turns all recover
    // at once, and the streams already running here must keep their pace.
    admission: "ahead",
    rows: async () => {
      // The rebuild's reads and the recovery's count in one wait (a takeover is mostly round trips);
      // counted before any work, so a turn that crashes the server again is bounded.
      const where = { userId: row.userId, threadId: row.threadId, model: runsWith.model };
      const [rebuilt, , spend] = await Promise.all([
        rebuildTurn(log, repos, row),
        counted && repos.turns.update(row.userId, row.id, { recoveries: row.recoveries + 1 }),
        // A turn that goes on elsewhere is never refused: it runs under the spend limits as they stand.
        checkSpend(chat.spendLimits, repos, where, { refuse: false }),
      ]);
      frames = rebuilt.frames;
      return {
        provider: runsWith.provider,
        model: runsWith.model,
        chatContext: runsWith.chatContext,
        memoryEnabled: runsWith.memoryEnabled,
        tree: rebuilt.tree,
        usageBefore: rebuilt.usage,
        ...(saved && { budgetUsed: saved.budgetUsed, checkpoint: saved.state }),
        resumed: true,
        ...(spend && { spend }),
      };
    },
    begin: (run) => closeCutCall(run, log, row, runsWith, saved, frames, counted),
    start: (run) =>
      saved
        ? (ctx: LoopContext) => fromCheckpoint(chat, run, ctx, provider, saved)
        : chatLoopStart(chat, run, {
            provider,
            connectionId: NO_CONNECTION,
            frames: log,
            rerun: true,
            ...(plan && { approvedPlan: plan }),
          }),
  };
  try {
    await openTurn(chat, opening);
    return true;
  } catch (error) {
    // Another instance holds the thread (or this process runs a turn there): the caller leaves it be.
    if (error instanceof AgentwireError && error.code === "busy") return false;
    throw error;
  }
}

/** The loop of a recovered turn, from its checkpoint. */
async function fromCheckpoint(
  chat: ChatServices,
  run: TurnSegment,
  ctx: LoopContext,
  provider: Provider,
  saved: TurnCheckpoint,
) {
  const { turn, repos } = run;
  const scope = {
    userId: turn.userId,
    threadId: turn.threadId,
    chatContext: saved.chatContext,
    connectionId: NO_CONNECTION,
    provider: saved.provider,
    model: saved.model,
  };
  const belt = await turnToolbelt(chat, scope, saved.memoryEnabled, run.logger, repos);
  if (belt.guidance !== undefined) ctx.guidance = belt.guidance;
  const context = await currentContextReport(repos, turn.userId, turn.threadId, chat, ctx);
  return runAgentLoop({
    ...(context && { context }),
    provider,
    tools: belt.tools,
    ctx,
    ...(belt.settings && { settings: belt.settings }),
    from: { kind: "checkpoint", checkpoint: saved.state, model: saved.model },
    signal: turn.abort.signal,
  });
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
 * The recovered turn's first frames, all in one commit before any new work: the cut model call's
 * text closed as an interrupted row, `resumed`, and a restart marker for each subtask cut mid-stream.
 */
async function closeCutCall(
  run: TurnSegment,
  log: FrameLog,
  row: TurnRow,
  runsWith: RunsWith,
  saved: TurnCheckpoint | undefined,
  frames: ServerFrame[],
  counted: boolean,
): Promise<void> {
  const { turn } = run;
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
}

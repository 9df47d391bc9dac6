import { continueFromCheckpoint, type LoopContext } from "@agentwire/agents";
import {
  type FrameLog,
  type Repositories,
  readTurnCheckpoint,
  type TurnCheckpoint,
  type TurnRow,
} from "@agentwire/storage";
import type { FastifyBaseLogger } from "fastify";
import { driveWhenAdmitted } from "../turns/admit-turn.js";
import { turnObserverOf } from "../turns/compose-observers.js";
import { driveTurn } from "../turns/drive-turn.js";
import { storeRow } from "../turns/end-turn.js";
import { partialAnswer, rebuildTurn } from "../turns/rebuild-turn.js";
import type { RunningTurn } from "../turns/running-turn.js";
import { localCoordination } from "../turns/turn-coordination.js";
import type { TurnRun } from "../turns/turn-run.js";
import type { ChatServices } from "./chat-services.js";
import { resumedContextReport } from "./continue-turn.js";
import { turnToolbelt } from "./turn-toolbelt.js";

/** What a client sees in `agent_state resumed` (after a restart, or on the instance that took over). */
const RESUMED = "the server restarted; the turn continues from its last completed step";

/** No socket started the continued turn: client UI tools find none under this id. */
const NO_CONNECTION = "recovered";

/**
 * Continues, in this process, a chat turn whose process died (this one's predecessor, or with Redis a
 * dead instance whose lease lapsed), from the checkpoint its frame log stored: the same turn and
 * thread log (its frames follow the stored ones), its tree rebuilt from them, usage and budget
 * carried over. The text the model streamed of the call in flight is kept
 * as an `interrupted` row (every character a client saw is stored), then `agent_state resumed`, then
 * the loop goes on. False (nothing done) without a readable checkpoint, past `maxRecoveries`, or when
 * the turn's provider is no longer configured, or when another instance holds the thread's lease:
 * the caller ends the turn as interrupted.
 */
export async function continueCrashedTurn(
  chat: ChatServices,
  log: FrameLog,
  repos: Repositories,
  logger: FastifyBaseLogger,
  row: TurnRow,
  maxRecoveries: number,
): Promise<boolean> {
  const saved = readTurnCheckpoint(row.checkpoint);
  if (!saved || row.recoveries >= maxRecoveries) return false;
  const provider = chat.providers.get(saved.provider);
  if (!provider) return false;
  const turn = chat.turns.start(log, row.threadId, row.userId, row.id);
  if (!turn) return false;
  const coordination = chat.coordination ?? localCoordination;
  let claimed = false;
  let run: TurnRun;
  try {
    // With Redis: the thread's lease, renewed while the turn runs here, so no other instance takes it too.
    claimed = await coordination.claim(row.threadId, row.id, () => turn.abort.abort("lease_lost"));
    if (!claimed) {
      chat.turns.finish(turn);
      return false;
    }
    run = await prepare(chat, log, repos, logger, row, saved, turn);
  } catch (error) {
    // Not left registered: the turn is ended as interrupted instead, and the thread takes new turns.
    chat.turns.finish(turn);
    turn.status = "error";
    if (claimed) await coordination.release(row.threadId, row.id).catch(() => undefined);
    throw error;
  }
  const start = async (ctx: LoopContext) => {
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
    const context = await resumedContextReport(repos, row.userId, row.threadId, chat, ctx);
    return continueFromCheckpoint({
      ...(context && { context }),
      provider,
      tools: belt.tools,
      ctx,
      checkpoint: saved.state,
      model: saved.model,
      signal: turn.abort.signal,
    });
  };
  driveWhenAdmitted(run, chat.admission?.admitNow(row.userId), () => driveTurn(run, start));
  return true;
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
  saved: TurnCheckpoint,
  turn: RunningTurn,
): Promise<TurnRun> {
  await log.claim(row.threadId);
  const { frames, tree, usage } = await rebuildTurn(log, repos, row);
  const run: TurnRun = {
    turn,
    registry: chat.turns,
    repos,
    logger: logger.child({ thread_id: row.threadId, turn_id: row.id }),
    provider: saved.provider,
    model: saved.model,
    limits: chat.scopes.limitsFor(chat.limits, saved.chatContext.kind),
    tree,
    chatContext: saved.chatContext,
    memoryEnabled: saved.memoryEnabled,
    usageBefore: usage,
    budgetUsed: saved.budgetUsed,
    checkpoint: saved.state,
    observer: turnObserverOf(chat, {
      threadId: row.threadId,
      turnId: row.id,
      provider: saved.provider,
      model: saved.model,
      resumed: true,
    }),
    coordination: chat.coordination ?? localCoordination,
    threadStates: chat.threadStates,
  };
  // Counted before any work, in the commit below: a turn that crashes the server again is bounded.
  await repos.turns.update(row.userId, row.id, { recoveries: row.recoveries + 1 });
  const partial = partialAnswer(frames);
  if (partial) {
    const who = { provider: saved.provider, model: saved.model };
    await storeRow(run, {
      role: "assistant",
      content: partial,
      status: "interrupted",
      turnId: row.id,
      ...who,
    });
  }
  turn.emit({ type: "agent_state", state: "resumed", detail: RESUMED });
  await log.flush();
  run.logger.warn({ recoveries: row.recoveries + 1 }, "turn continues after a restart");
  return run;
}

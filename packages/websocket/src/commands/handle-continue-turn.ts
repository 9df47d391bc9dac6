import {
  ExecutionTreeBuilder,
  type LoopContext,
  runAgentLoop,
  withFreshIterations,
} from "@agentwire-chat/agents";
import { AgentwireError, type StoredMessage } from "@agentwire-chat/protocol";
import { readTurnCheckpoint, type TurnCheckpoint, type TurnRow } from "@agentwire-chat/storage";
import type { ChatServices } from "../chat/chat-services.js";
import { currentContextReport } from "../chat/resume-turn.js";
import { turnToolbelt } from "../chat/turn-toolbelt.js";
import type { ActiveTurn } from "../turns/active-turn.js";
import { driveWhenAdmitted, reserveTurn } from "../turns/admit-turn.js";
import { driveTurn } from "../turns/drive-turn.js";
import { localCoordination } from "../turns/turn-coordination.js";
import { type TurnSegment, turnSegmentOf } from "../turns/turn-segment.js";
import { ownThread, watchTurn } from "../turns/watch-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** The ends `continue_turn` takes a turn on from. */
const CONTINUABLE = new Set(["budget_exceeded", "iteration_limit"]);

const BUSY = "a turn is already running on this thread";

const NONE_USED = { subtasks: 0, llmCalls: 0, toolCalls: 0, tokens: 0, bytes: 0 };

/**
 * `continue_turn`: the thread's last turn, ended by a budget or the iteration limit, goes on from
 * the checkpoint stored at that end with a fresh budget, as the same turn (same id, same thread log,
 * its tree, usage and ledger adding up). `busy` while a turn runs or waits there; `not_found` for a
 * thread that is not the user's or whose last turn cannot be continued.
 */
export const handleContinueTurn: ChatCommandHandler<"continue_turn"> = async (frame, conn, chat) => {
  const thread = await ownThread(conn, frame.data.thread_id);
  const row = await conn.repos.turns.latest(conn.userId, thread.id);
  if (chat.turns.get(thread.id)?.active || row?.status === "running" || row?.status === "waiting_user")
    throw new AgentwireError("busy", BUSY);
  const stored = row && CONTINUABLE.has(row.status) ? readTurnCheckpoint(row.checkpoint) : undefined;
  if (!row || !stored)
    throw new AgentwireError(
      "not_found",
      "no turn on this thread that a budget or the iteration limit ended",
    );
  const saved: TurnCheckpoint = {
    ...stored,
    state: withFreshIterations(stored.state),
    budgetUsed: NONE_USED,
  };
  const provider = chat.providers.get(saved.provider);
  if (!provider)
    throw new AgentwireError("bad_request", `provider "${saved.provider}" is no longer configured`);
  const ticket = reserveTurn(chat.admission, conn.userId);
  let run: TurnSegment;
  try {
    run = await reopen(conn, chat, row, saved);
  } catch (error) {
    ticket?.release();
    throw error;
  }
  const scope = {
    userId: conn.userId,
    threadId: thread.id,
    chatContext: saved.chatContext,
    connectionId: conn.connectionId,
    provider: saved.provider,
    model: saved.model,
  };
  const start = async (ctx: LoopContext) => {
    const belt = await turnToolbelt(chat, scope, saved.memoryEnabled, run.logger, run.repos);
    if (belt.guidance !== undefined) ctx.guidance = belt.guidance;
    const context = await currentContextReport(run.repos, conn.userId, thread.id, chat, ctx);
    return runAgentLoop({
      ...(context && { context }),
      provider,
      tools: belt.tools,
      ctx,
      from: { kind: "checkpoint", checkpoint: saved.state, model: saved.model, after: "budget" },
      signal: run.turn.abort.signal,
    });
  };
  driveWhenAdmitted(run, ticket, () => driveTurn(run, start));
};

/**
 * Registers the ended turn again under its id and claims its thread (here and across instances),
 * marks its row running, and says `agent_state resumed`: every check that can refuse is done.
 */
async function reopen(
  conn: ConnectionContext,
  chat: ChatServices,
  row: TurnRow,
  saved: TurnCheckpoint,
): Promise<TurnSegment> {
  const turn = chat.turns.start(conn.frames, row.threadId, conn.userId, row.id);
  if (!turn) throw new AgentwireError("busy", BUSY);
  const coordination = chat.coordination ?? localCoordination;
  let claimed = false;
  try {
    claimed = await coordination.claim(row.threadId, row.id, () => turn.abort.abort("lease_lost"));
    if (!claimed) throw new AgentwireError("busy", BUSY);
    await turn.log.claim(row.threadId);
    const final = await finalRow(conn, row.threadId);
    await conn.repos.turns.update(conn.userId, row.id, { status: "running", error: null, endedAt: null });
    return opened(conn, chat, row, saved, turn, final);
  } catch (error) {
    chat.turns.finish(turn);
    turn.status = "error";
    if (claimed) await coordination.release(row.threadId, row.id).catch(() => undefined);
    throw error;
  }
}

function opened(
  conn: ConnectionContext,
  chat: ChatServices,
  row: TurnRow,
  saved: TurnCheckpoint,
  turn: ActiveTurn,
  final: StoredMessage | undefined,
): TurnSegment {
  chat.threadStates.changed({ userId: conn.userId, threadId: row.threadId, state: "running" });
  watchTurn(conn, turn);
  const detail = `continued after ${row.status} with a fresh budget`;
  turn.emit({ type: "agent_state", state: "resumed", detail });
  // A crash before the continuation's first step continues from here, on the fresh budget too.
  turn.checkpoint(JSON.stringify(saved));
  return turnSegmentOf(chat, turn, conn.repos, conn.logger, {
    provider: saved.provider,
    model: saved.model,
    chatContext: saved.chatContext,
    memoryEnabled: saved.memoryEnabled,
    // The one tree of the turn: the continuation's calls join what the first part stored.
    tree: new ExecutionTreeBuilder(final?.execution_tree ? { from: final.execution_tree } : {}),
    ...(row.usage && { usageBefore: row.usage }),
    checkpoint: saved.state,
    resumed: true,
  });
}

/** The turn's final row (it is the thread's last turn): the stored tree the continuation extends. */
async function finalRow(conn: ConnectionContext, threadId: string): Promise<StoredMessage | undefined> {
  const rows = await conn.repos.messages.list(conn.userId, threadId);
  return rows.findLast((m) => m.role === "assistant" && m.execution_tree !== undefined);
}

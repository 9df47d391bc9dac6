import {
  ExecutionTreeBuilder,
  type LoopContext,
  runAgentLoop,
  withFreshIterations,
} from "@agentwire-chat/agents";
import { AgentwireError, type StoredMessage } from "@agentwire-chat/protocol";
import { readTurnCheckpoint, type TurnCheckpoint, type TurnRow } from "@agentwire-chat/storage";
import { openTurn } from "../turns/open-turn.js";
import { checkSpend } from "../turns/spend-limits.js";
import { ownThread } from "../turns/watch-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";
import { currentContextReport } from "./resume-turn.js";
import { turnToolbelt } from "./turn-toolbelt.js";

/** The ends a turn can be extended from. */
const EXTENDABLE = new Set(["budget_exceeded", "iteration_limit"]);

const NONE_USED = { subtasks: 0, llmCalls: 0, toolCalls: 0, tokens: 0, bytes: 0 };

/**
 * Extends the thread's last turn (`continue_turn`), ended by a budget or the iteration limit: it goes
 * on from the checkpoint stored at that end with a fresh budget, as the same turn (same id, same
 * thread log, its tree, usage and ledger adding up), through `openTurn`. `busy` while a turn runs or
 * waits there; `not_found` for a thread that is not the user's or whose last turn cannot be extended.
 */
export async function extendTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  threadId: string,
): Promise<void> {
  const { userId, repos } = conn;
  const thread = await ownThread(conn, threadId);
  const row = await repos.turns.latest(userId, thread.id);
  if (chat.turns.get(thread.id)?.active || row?.status === "running" || row?.status === "waiting_user")
    throw new AgentwireError("busy", "a turn is already running on this thread");
  const stored = row && EXTENDABLE.has(row.status) ? readTurnCheckpoint(row.checkpoint) : undefined;
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
  // Before the turn's row is opened again: a spend limit reached refuses the extension, nothing written.
  const spend = await checkSpend(chat.spendLimits, repos, {
    userId,
    threadId: thread.id,
    model: saved.model,
  });
  const scope = {
    userId,
    threadId: thread.id,
    chatContext: saved.chatContext,
    connectionId: conn.connectionId,
    provider: saved.provider,
    model: saved.model,
  };
  await openTurn(chat, {
    verb: "extend",
    log: conn.frames,
    repos,
    threadId: thread.id,
    userId,
    turnId: row.id,
    logger: conn.logger,
    conn,
    admission: "queue",
    rows: async () => {
      const final = await finalRow(conn, thread.id);
      // The extension's rows follow the turn's end, whichever branch the thread shows now.
      if (final) await repos.messages.setCurrentLeaf(userId, thread.id, final.id);
      await repos.turns.update(userId, row.id, { status: "running", error: null, endedAt: null });
      return {
        provider: saved.provider,
        model: saved.model,
        chatContext: saved.chatContext,
        memoryEnabled: saved.memoryEnabled,
        // The one tree of the turn: the extension's calls join what the first part stored.
        tree: new ExecutionTreeBuilder(final?.execution_tree ? { from: final.execution_tree } : {}),
        ...(row.usage && { usageBefore: row.usage }),
        checkpoint: saved.state,
        resumed: true,
        ...(spend && { spend }),
      };
    },
    undoRows: async () => {
      await repos.turns.update(userId, row.id, ended(row));
      await repos.messages.setCurrentLeaf(userId, thread.id, thread.currentLeafId);
    },
    begin: async ({ turn }) => {
      const detail = `continued after ${row.status} with a fresh budget`;
      turn.emit({ type: "agent_state", state: "resumed", detail });
      // A crash before the extension's first step recovers from here, on the fresh budget too.
      turn.checkpoint(JSON.stringify(saved));
    },
    start: (run) => async (ctx: LoopContext) => {
      const belt = await turnToolbelt(chat, scope, saved.memoryEnabled, run.logger, run.repos);
      if (belt.guidance !== undefined) ctx.guidance = belt.guidance;
      const context = await currentContextReport(run.repos, userId, thread.id, chat, ctx);
      return runAgentLoop({
        ...(context && { context }),
        provider,
        tools: belt.tools,
        ctx,
        ...(belt.settings && { settings: belt.settings }),
        from: { kind: "checkpoint", checkpoint: saved.state, model: saved.model, after: "budget" },
        signal: run.turn.abort.signal,
      });
    },
  });
}

/** The row's end as it was before the extension opened it. */
function ended(row: TurnRow) {
  return { status: row.status, error: row.error, endedAt: row.endedAt };
}

/** The turn's final row (it is the thread's last turn, so its end is the newest of any branch): the stored tree the extension adds to. */
async function finalRow(conn: ConnectionContext, threadId: string): Promise<StoredMessage | undefined> {
  const rows = await conn.repos.messages.list(conn.userId, threadId);
  return rows.findLast((m) => m.role === "assistant" && m.execution_tree !== undefined);
}

import {
  abortTurn,
  type ContextReport,
  contextReport,
  ExecutionTreeBuilder,
  type LoopContext,
  type ResumeAnswer,
  renderScratchpad,
  runAgentLoop,
  type Tool,
  USER_STOP,
  UsageAccumulator,
} from "@agentwire-chat/agents";
import { AgentwireError, type ExecutionTreeSnapshot } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import { readSuspendedTurn, type SuspendedTurn } from "@agentwire-chat/storage";
import type { ActiveTurn } from "../turns/active-turn.js";
import { endTurn } from "../turns/end-turn.js";
import { openTurn } from "../turns/open-turn.js";
import { checkSpend } from "../turns/spend-limits.js";
import { type SegmentSetup, turnSegmentOf } from "../turns/turn-segment.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";
import { closeWaitingCalls } from "./close-waiting-calls.js";
import { openDurations, treeAfterWait } from "./open-calls.js";
import { currentBranch } from "./thread-context.js";
import { turnToolbelt } from "./turn-toolbelt.js";

/** `tree`: the saved tree with the wait counted in its open calls' durations (see `treeAfterWait`). */
export type WaitingTurn = { turn: ActiveTurn; saved: SuspendedTurn; tree: ExecutionTreeSnapshot };

/**
 * The thread's turn that waits on the user, active in this process or (after a restart) only in
 * the database, then registered here to carry its frames; undefined when nothing waits.
 */
export async function waitingTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  threadId: string,
): Promise<WaitingTurn | undefined> {
  const found = chat.turns.get(threadId);
  const live = found?.active ? found : undefined;
  if (live && live.status !== "waiting_user") return undefined;
  const row = await conn.repos.turns.latest(conn.userId, threadId);
  if (!row || row.status !== "waiting_user") return undefined;
  const saved = readSuspendedTurn(row.suspendedState);
  if (!saved) return undefined;
  const tree = treeAfterWait(saved);
  if (live) return live.turnId === row.id ? { turn: live, saved, tree } : undefined;
  const turn = chat.turns.start(conn.frames, threadId, conn.userId, row.id, "waiting_user");
  if (!turn) return undefined;
  await turn.log.claim(threadId);
  return { turn, saved, tree };
}

/** What a segment after a wait runs with: the saved turn's tree, usage and budget counters carried over. */
function setupOf({ saved, tree }: WaitingTurn): SegmentSetup {
  return {
    provider: saved.provider,
    model: saved.model,
    // The scope the turn began in, kept in the suspension: its budget still applies.
    chatContext: saved.chatContext,
    memoryEnabled: saved.memoryEnabled,
    tree: new ExecutionTreeBuilder({ from: tree }),
    usageBefore: saved.usage,
    budgetUsed: saved.budgetUsed,
    resumed: true,
  };
}

/**
 * Resumes a waiting turn with the answer to its pending call, through `openTurn`; `answer` may be
 * computed from the turn's unwrapped toolbelt (an approved tool, which the resumed loop then runs as
 * the call). Two answers on two instances: the thread's lease lets one resume; the other is `busy`.
 */
export async function resumeTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  waiting: WaitingTurn,
  answer: (tools: Map<string, Tool>) => Promise<ResumeAnswer>,
): Promise<void> {
  const { turn, saved } = waiting;
  const provider = chat.providers.get(saved.provider);
  if (!provider)
    throw new AgentwireError("bad_request", `provider "${saved.provider}" is no longer configured`);
  const { userId } = conn;
  // An answer is never refused for spend: the resumed turn runs under the limits as they stand now.
  const where = { userId, threadId: turn.threadId, model: saved.model };
  const spend = await checkSpend(chat.spendLimits, conn.repos, where, { refuse: false });
  const scope = {
    userId,
    threadId: turn.threadId,
    chatContext: saved.chatContext,
    connectionId: conn.connectionId,
    provider: saved.provider,
    model: saved.model,
  };
  await openTurn(chat, {
    verb: "resume",
    log: turn.log,
    repos: conn.repos,
    threadId: turn.threadId,
    userId,
    turnId: turn.turnId,
    logger: conn.logger,
    waiting: turn,
    conn,
    // A resumed turn never queues, but holds a live slot until it ends or waits on the user again.
    admission: "now",
    rows: async () => {
      // The checkpoint from before the wait is stale now: until the resumed loop stores one, a crash interrupts.
      await conn.repos.turns.update(userId, turn.turnId, {
        status: "running",
        suspendedState: null,
        checkpoint: null,
      });
      return { ...setupOf(waiting), ...(spend && { spend }) };
    },
    undoRows: () =>
      conn.repos.turns.update(userId, turn.turnId, { status: "waiting_user", suspendedState: saved }),
    start: (run) => async (ctx: LoopContext) => {
      const belt = await turnToolbelt(chat, scope, saved.memoryEnabled, run.logger, run.repos);
      if (belt.guidance !== undefined) ctx.guidance = belt.guidance;
      const given = await answer(belt.unwrapped);
      const context = await currentContextReport(run.repos, userId, turn.threadId, chat, ctx);
      return runAgentLoop({
        ...(context && { context }),
        provider,
        tools: belt.tools,
        ctx,
        ...(belt.settings && { settings: belt.settings }),
        from: {
          kind: "suspended",
          state: saved.state,
          answer: given,
          model: saved.model,
          openFor: openDurations(waiting.tree),
        },
        signal: turn.abort.signal,
      });
    },
  });
}

/** Ends a waiting turn without resuming it (the user stopped it): partial answer kept, status stopped. */
export async function stopWaitingTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  waiting: WaitingTurn,
): Promise<void> {
  abortTurn(waiting.turn.abort, USER_STOP);
  const run = turnSegmentOf(chat, waiting.turn, conn.repos, conn.logger, setupOf(waiting));
  await closeWaitingCalls(run, waiting.saved.state);
  await endTurn(run, { status: "stopped", usage: new UsageAccumulator().snapshot() }, waiting.saved.text);
}

/**
 * The root's `context_usage` numbers for a resumed turn, from the thread's summary and scratchpad as
 * they are now (the turn may have changed its scratchpad before it waited); none without context settings.
 */
export async function currentContextReport(
  repos: Repositories,
  userId: string,
  threadId: string,
  chat: ChatServices,
  ctx: LoopContext,
): Promise<ContextReport | undefined> {
  if (!chat.context) return undefined;
  const [branch, items] = await Promise.all([
    currentBranch(repos, userId, threadId),
    repos.scratchpad.list(userId, threadId),
  ]);
  const summary = await repos.summaries.get(userId, threadId, branch.ids);
  return contextReport(summary, renderScratchpad(items), chat.context, ctx.budget.limits.MAX_HISTORY_TOKENS);
}

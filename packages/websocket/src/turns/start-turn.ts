import { randomUUID } from "node:crypto";
import { ExecutionTreeBuilder, UsageAccumulator } from "@agentwire-chat/agents";
import {
  AgentwireError,
  type ChatMessageData,
  isPrintable,
  type StoredMessage,
} from "@agentwire-chat/protocol";
import type { QueuedMessageRow, ThreadRow, TurnStartRecord } from "@agentwire-chat/storage";
import type { DriveOptions, TurnStart } from "./drive-turn.js";
import { storeRow } from "./end-turn.js";
import { admissionTicket, type OpeningAdmission, openTurn } from "./open-turn.js";
import { checkSpend, type SpendTracker } from "./spend-limits.js";
import { followBranchTitle, titleOf } from "./thread-title.js";
import type { TurnConnection } from "./turn-connection.js";
import type { TurnSegment, TurnServices } from "./turn-segment.js";
import { ownThread } from "./watch-turn.js";

/** A turn started by a user's message, with that message as stored (a regenerate's: the one it answers again). */
export type StartedTurn = TurnSegment & { userRow: StoredMessage };

/** How a route starts its turns: who answers, its place among the server's turns, its source. */
export type StartOptions = {
  who: { provider: string; model: string };
  requestId?: string | undefined;
  /** Chat turns: what the turn starts with is stored with its row, so a turn cut off before its first step runs again. */
  rerun?: Pick<TurnStartRecord["start"], "planId">;
  admission: OpeningAdmission;
  start(turn: StartedTurn): TurnStart;
  drive?: DriveOptions;
  /** A regenerate: the turn answers this stored user message again, on a new branch beside its old answer. */
  answer?: StoredMessage;
  /** The queued message this turn starts with: taken from the queue, its id kept for the user message. */
  queued?: QueuedMessageRow;
  /** False: nobody sent this message on a socket now (a queued message's start); its thread's watchers follow it. */
  watch?: boolean;
};

/**
 * Starts a turn of any route on a user's message, through `openTurn`: the thread created when none
 * is given (`thread` frame first), the turn's row, the user message stored. Everything that can
 * refuse the message must have been checked before this is called. The message's `request_id` is
 * stored with the turn and echoed on its first frames (`thread`, the user's `message`), so a client
 * that lost them can still find its thread.
 */
export async function startTurn(
  conn: TurnConnection,
  services: TurnServices,
  data: ChatMessageData,
  options: StartOptions,
): Promise<StartedTurn> {
  const { repos, userId } = conn;
  const { who, requestId, rerun } = options;
  // Synchronously, before anything is stored: a full admission queue refuses the turn (`overloaded`).
  const ticket = admissionTicket(services, userId, options.admission);
  let thread: ThreadRow;
  let existing: ThreadRow | undefined;
  let spend: SpendTracker | undefined;
  try {
    existing = data.thread_id !== undefined ? await ownThread(conn, data.thread_id) : undefined;
    // The stored state is the source of truth for busy: a turn waiting on the user may live only there.
    if (existing && (await repos.turns.latest(userId, existing.id))?.status === "waiting_user") {
      throw new AgentwireError("busy", "a turn is already running on this thread");
    }
    if (data.parent_message_id !== undefined && !existing)
      throw new AgentwireError("bad_request", "parent_message_id: needs the thread_id it belongs to");
    if (existing && data.parent_message_id != null)
      await checkParent(conn, existing.id, data.parent_message_id);
    // Every route's start (chat, regenerate, a queued message, the AI SDK and AG-UI edges, media,
    // workflows) passes here before its first write: a spend limit reached refuses it with nothing stored.
    spend = await checkSpend(services.spendLimits, repos, {
      userId,
      threadId: existing?.id,
      model: who.model,
    });
    thread = existing ?? (await repos.threads.create(userId, titleOf(data.content)));
    // A new first message: the title follows it when it was made from the old one.
    if (existing && data.parent_message_id === null) {
      const first = (await repos.messages.branch(userId, existing.id))?.messages[0];
      await followBranchTitle(repos, userId, existing.id, first?.content, data.content);
    }
  } catch (error) {
    ticket?.release();
    throw error;
  }
  const turnId = randomUUID();
  const { answer, queued } = options;
  const chatContext = data.chat_context ?? { kind: "thread" };
  const memoryEnabled = data.memory_enabled ?? true;
  const echo = requestId !== undefined ? { request_id: requestId } : {};
  const segment = await openTurn(services, {
    verb: "start",
    log: conn.frames,
    repos,
    threadId: thread.id,
    userId,
    turnId,
    logger: conn.logger,
    ...(options.watch !== false && { conn }),
    admission: { reserved: ticket },
    rows: async () => {
      // Under the thread's claim: a queued message starts once, on one instance.
      if (queued && !(await repos.queuedMessages.remove(userId, thread.id, queued.id)))
        throw new AgentwireError("busy", "the queued message was started or cancelled meanwhile");
      // A regenerate's rows follow the message it answers again: a new branch beside the old answer.
      if (answer) await repos.messages.setCurrentLeaf(userId, thread.id, answer.id);
      await repos.turns.start(userId, thread.id, {
        id: turnId,
        ...who,
        ...(requestId !== undefined && isPrintable(requestId) && { requestId }),
        ...(rerun && { checkpoint: { version: 1, start: { ...who, chatContext, memoryEnabled, ...rerun } } }),
      });
      const setup = { ...who, tree: new ExecutionTreeBuilder(), chatContext, memoryEnabled, resumed: false };
      return { ...setup, ...(spend && { spend }) };
    },
    // A turn whose first frames failed never ran: it ends `error` rather than stay `running`; the
    // branch it moved to and the queued message it took are put back.
    undoRows: async () => {
      await repos.turns.end(userId, turnId, {
        status: "error",
        usage: new UsageAccumulator().snapshot(),
        error: "the turn could not start",
        endedAt: Date.now(),
      });
      if (answer) await repos.messages.setCurrentLeaf(userId, thread.id, existing?.currentLeafId ?? null);
      if (queued) await repos.queuedMessages.restore(queued);
    },
    begin: async (segment) => {
      if (!existing) segment.turn.emit({ type: "thread", title: thread.title, ...echo });
      const userRow =
        answer ??
        (await storeRow(
          segment,
          {
            role: "user",
            content: data.content,
            status: "complete",
            turnId,
            ...(queued && { id: queued.id }),
            ...(data.parent_message_id !== undefined && { parentId: data.parent_message_id }),
          },
          echo,
        ));
      segment.turn.emit({ type: "turn_started", turn_id: turnId, user_message_id: userRow.id });
      // The segment itself becomes the StartedTurn the route's source and the caller see.
      Object.assign(segment, { userRow });
    },
    start: (segment) => options.start(segment as StartedTurn),
    ...(options.drive && { drive: options.drive }),
  });
  return segment as StartedTurn;
}

/**
 * A new message may follow only the end of a turn (its final assistant row, on any branch): between
 * a turn's rows it would cut a tool call from its result.
 */
export async function checkParent(conn: TurnConnection, threadId: string, parentId: string): Promise<void> {
  const parent = await conn.repos.messages.get(conn.userId, threadId, parentId);
  if (!parent) throw new AgentwireError("not_found", "parent_message_id: no such message in this thread");
  if (parent.role !== "assistant" || parent.execution_tree === undefined)
    throw new AgentwireError(
      "bad_request",
      "parent_message_id: a message follows the end of a turn (its final assistant message), or null for the first",
    );
}

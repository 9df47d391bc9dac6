import { randomUUID } from "node:crypto";
import { ExecutionTreeBuilder, UsageAccumulator } from "@agentwire-chat/agents";
import {
  AgentwireError,
  type ChatMessageData,
  contentText,
  isPrintable,
  preview,
  type StoredMessage,
  stripControl,
} from "@agentwire-chat/protocol";
import type { ThreadRow, TurnStartRecord } from "@agentwire-chat/storage";
import type { DriveOptions, TurnStart } from "./drive-turn.js";
import { storeRow } from "./end-turn.js";
import { admissionTicket, type OpeningAdmission, openTurn } from "./open-turn.js";
import type { TurnConnection } from "./turn-connection.js";
import type { TurnSegment, TurnServices } from "./turn-segment.js";
import { ownThread } from "./watch-turn.js";

/** A turn started by a user's message, with that message as stored. */
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
  try {
    existing = data.thread_id !== undefined ? await ownThread(conn, data.thread_id) : undefined;
    // The stored state is the source of truth for busy: a turn waiting on the user may live only there.
    if (existing && (await repos.turns.latest(userId, existing.id))?.status === "waiting_user") {
      throw new AgentwireError("busy", "a turn is already running on this thread");
    }
    thread = existing ?? (await repos.threads.create(userId, titleOf(data.content)));
  } catch (error) {
    ticket?.release();
    throw error;
  }
  const turnId = randomUUID();
  const chatContext = data.chat_context ?? { kind: "thread" };
  const memoryEnabled = data.memory_enabled ?? true;
  const echo = requestId !== undefined ? { request_id: requestId } : {};
  let started: StartedTurn | undefined;
  const segment = await openTurn(services, {
    verb: "start",
    log: conn.frames,
    repos,
    threadId: thread.id,
    userId,
    turnId,
    logger: conn.logger,
    conn,
    admission: { reserved: ticket },
    rows: async () => {
      await repos.turns.start(userId, thread.id, {
        id: turnId,
        ...who,
        ...(requestId !== undefined && isPrintable(requestId) && { requestId }),
        ...(rerun && { checkpoint: { version: 1, start: { ...who, chatContext, memoryEnabled, ...rerun } } }),
      });
      return { ...who, tree: new ExecutionTreeBuilder(), chatContext, memoryEnabled, resumed: false };
    },
    // A turn whose first frames failed never ran: it ends `error` rather than stay `running`.
    undoRows: () =>
      repos.turns.end(userId, turnId, {
        status: "error",
        usage: new UsageAccumulator().snapshot(),
        error: "the turn could not start",
        endedAt: Date.now(),
      }),
    begin: async (segment) => {
      if (!existing) segment.turn.emit({ type: "thread", title: thread.title, ...echo });
      const userRow = await storeRow(
        segment,
        { role: "user", content: data.content, status: "complete", turnId },
        echo,
      );
      started = Object.assign(segment, { userRow });
    },
    start: (segment) => options.start(segment as StartedTurn),
    ...(options.drive && { drive: options.drive }),
  });
  return started ?? (segment as StartedTurn);
}

/** A thread's title from its first message. */
export function titleOf(content: ChatMessageData["content"]): string {
  // Control characters out too: Postgres text cannot hold NUL, and a title is for reading.
  return preview(stripControl(contentText(content)), 80) || "New chat";
}

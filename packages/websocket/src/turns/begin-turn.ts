import { randomUUID } from "node:crypto";
import { ExecutionTreeBuilder } from "@agentwire-chat/agents";
import {
  AgentwireError,
  type ChatMessageData,
  contentText,
  isPrintable,
  preview,
  type StoredMessage,
  stripControl,
} from "@agentwire-chat/protocol";
import type { TurnStartRecord } from "@agentwire-chat/storage";
import { storeRow } from "./end-turn.js";
import type { TurnConnection } from "./turn-connection.js";
import { localCoordination } from "./turn-coordination.js";
import { type TurnSegment, type TurnServices, turnSegmentOf } from "./turn-segment.js";
import { ownThread, watchTurn } from "./watch-turn.js";

/**
 * Starts a turn of any route the same way: busy check, the thread created when none is given
 * (`thread` frame first), the turn registered and watched by the connection, the user message
 * stored. Everything that can refuse the message must have been checked before this is called.
 * The message's `request_id` is stored with the turn and echoed on its first frames (`thread`, the
 * user's `message`), so a client that lost them can still find its thread. `rerun` (chat turns): what
 * the turn starts with is stored with its row, so a turn cut off before its first step runs again.
 */
export async function beginTurn(
  conn: TurnConnection,
  services: TurnServices,
  data: ChatMessageData,
  who: { provider: string; model: string },
  requestId?: string,
  rerun?: Pick<TurnStartRecord["start"], "planId">,
): Promise<StartedTurn> {
  const { repos, userId } = conn;
  const existing = data.thread_id !== undefined ? await ownThread(conn, data.thread_id) : undefined;
  // The stored state is the source of truth for busy: a turn waiting on the user may live only there.
  if (existing && (await repos.turns.latest(userId, existing.id))?.status === "waiting_user") {
    throw new AgentwireError("busy", "a turn is already running on this thread");
  }
  const thread = existing ?? (await repos.threads.create(userId, titleOf(data.content)));
  // Claimed synchronously after the last check: no other message can take the thread in between.
  const turn = services.turns.start(conn.frames, thread.id, userId, randomUUID());
  if (!turn) throw new AgentwireError("busy", "a turn is already running on this thread");
  const coordination = services.coordination ?? localCoordination;
  const chatContext = data.chat_context ?? { kind: "thread" };
  const memoryEnabled = data.memory_enabled ?? true;
  let claimed = false;
  try {
    // Across instances next; the row is stored only once the thread is ours everywhere.
    claimed = await coordination.claim(thread.id, turn.turnId, () => turn.abort.abort("lease_lost"));
    if (!claimed) throw new AgentwireError("busy", "a turn is already running on this thread");
    await turn.log.claim(thread.id);
    await repos.turns.start(userId, thread.id, {
      id: turn.turnId,
      ...who,
      ...(requestId !== undefined && isPrintable(requestId) && { requestId }),
      ...(rerun && { checkpoint: { version: 1, start: { ...who, chatContext, memoryEnabled, ...rerun } } }),
    });
  } catch (error) {
    services.turns.finish(turn);
    turn.status = "error";
    if (claimed) await coordination.release(thread.id, turn.turnId).catch(() => undefined);
    throw error;
  }
  services.threadStates?.changed({ userId, threadId: thread.id, state: "running" });
  watchTurn(conn, turn);
  const run = turnSegmentOf(services, turn, repos, conn.logger, {
    ...who,
    tree: new ExecutionTreeBuilder(),
    chatContext,
    memoryEnabled,
    resumed: false,
  });
  const echo = requestId !== undefined ? { request_id: requestId } : {};
  if (!existing) turn.emit({ type: "thread", title: thread.title, ...echo });
  const userRow = await storeRow(
    run,
    { role: "user", content: data.content, status: "complete", turnId: turn.turnId },
    echo,
  );
  return Object.assign(run, { userRow });
}

/** A turn begun by `beginTurn`, with the user's message as stored. */
export type StartedTurn = TurnSegment & { userRow: StoredMessage };

/** A thread's title from its first message. */
export function titleOf(content: ChatMessageData["content"]): string {
  // Control characters out too: Postgres text cannot hold NUL, and a title is for reading.
  return preview(stripControl(contentText(content)), 80) || "New chat";
}

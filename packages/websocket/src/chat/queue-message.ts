import { randomUUID } from "node:crypto";
import { AgentwireError, type ChatMessageData, type OnBusy } from "@agentwire-chat/protocol";
import type { QueuedChatMessage } from "@agentwire-chat/storage";
import { checkSpend } from "../turns/spend-limits.js";
import { checkParent } from "../turns/start-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import { defaultBusySettings } from "./busy-settings.js";
import type { ChatServices } from "./chat-services.js";
import { startQueued } from "./start-queued.js";
import { stopThreadTurn } from "./stop-thread-turn.js";

/**
 * A chat_message that found its thread busy, as its `on_busy` says: stored in the thread's queue
 * (`queue`; `steer`, which the running turn takes before its next model call; `interrupt`, first in
 * line, with the running turn stopped) and answered `message_queued`. Everything that would refuse
 * it at its start is checked now, so a queued message is one that can run. The socket follows the
 * thread from here, so it sees the turn that runs the message.
 */
export async function queueMessage(
  data: ChatMessageData & { thread_id: string },
  conn: ConnectionContext,
  chat: ChatServices,
  mode: Exclude<OnBusy, "reject">,
  requestId: string | undefined,
): Promise<void> {
  const { repos, userId } = conn;
  const threadId = data.thread_id;
  if (mode === "steer" && data.parent_message_id !== undefined)
    throw new AgentwireError(
      "bad_request",
      "parent_message_id: a steering message joins the running turn's branch",
    );
  if (data.parent_message_id != null) await checkParent(conn, threadId, data.parent_message_id);
  const defaults = chat.scopes.defaultsFor(chat.defaults, data.chat_context?.kind ?? "thread");
  const resolved = chat.providers.resolve({ provider: data.provider, model: data.model }, defaults);
  if (!resolved.ok) throw new AgentwireError("bad_request", resolved.message);
  await checkSpend(chat.spendLimits, repos, { userId, threadId, model: resolved.model });
  const echo = requestId !== undefined ? { request_id: requestId } : {};
  // A client that lost `message_queued` to a dropped socket sends the message again: it waits once.
  const queue = requestId === undefined ? [] : await repos.queuedMessages.list(userId, threadId);
  const at = queue.findIndex((row) => row.requestId === requestId);
  const waiting = queue[at];
  if (waiting) {
    conn.frames.subscribe(threadId, conn.subscriber);
    const frame = { thread_id: threadId, message_id: waiting.id, mode: waiting.mode, position: at + 1 };
    conn.send({ type: "message_queued", ...frame, ...echo });
    return;
  }
  const max = (chat.busy ?? defaultBusySettings).queueMax;
  const id = randomUUID();
  const message = { id, mode, data: queuedData(data), ...(requestId !== undefined && { requestId }) };
  const stored = await repos.queuedMessages.enqueue(userId, threadId, message, max);
  if (stored === "full")
    throw new AgentwireError("busy", `the thread's queue is full (${max} messages wait)`);
  conn.frames.subscribe(threadId, conn.subscriber);
  const frame = { thread_id: threadId, message_id: id, mode, position: stored.position };
  conn.send({ type: "message_queued", ...frame, ...echo });
  const live = chat.turns.get(threadId);
  if (mode === "steer" && live) live.steerPending = true;
  // The turn may have ended between the busy refusal and the insert, finding no message to start.
  const stopped = mode === "interrupt" && (await stopThreadTurn(conn, chat, threadId));
  if (!stopped && !(await threadBusy(conn, chat, threadId)))
    await startQueued(chat, { userId, threadId, repos, frames: conn.frames, logger: conn.logger });
}

/** Whether a turn runs or waits on the thread, here or on another instance. */
async function threadBusy(conn: ConnectionContext, chat: ChatServices, threadId: string): Promise<boolean> {
  if (chat.turns.get(threadId)?.active) return true;
  if ((await chat.coordination?.remoteOwner(threadId)) !== undefined) return true;
  const status = (await conn.repos.turns.latest(conn.userId, threadId))?.status;
  return status === "running" || status === "waiting_user";
}

/** What of a chat_message its queued turn starts with (the chat route's fields). */
function queuedData(data: ChatMessageData): QueuedChatMessage {
  return {
    content: data.content,
    ...(data.provider !== undefined && { provider: data.provider }),
    ...(data.model !== undefined && { model: data.model }),
    ...(data.chat_context !== undefined && { chat_context: data.chat_context }),
    ...(data.memory_enabled !== undefined && { memory_enabled: data.memory_enabled }),
    ...(data.parent_message_id !== undefined && { parent_message_id: data.parent_message_id }),
  };
}

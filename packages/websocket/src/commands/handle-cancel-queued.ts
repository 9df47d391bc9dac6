import { AgentwireError } from "@agentwire-chat/protocol";
import { ownThread } from "../turns/watch-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** `cancel_queued`: removes a queued message that has not started; `queued_message_cancelled` answers. */
export const handleCancelQueued: ChatCommandHandler<"cancel_queued"> = async (frame, conn) => {
  const thread = await ownThread(conn, frame.data.thread_id);
  const { message_id } = frame.data;
  if (!(await conn.repos.queuedMessages.remove(conn.userId, thread.id, message_id)))
    throw new AgentwireError("not_found", "message_id: no such queued message (it may have started)");
  const echo = frame.request_id !== undefined ? { request_id: frame.request_id } : {};
  conn.send({ type: "queued_message_cancelled", thread_id: thread.id, message_id, ...echo });
};

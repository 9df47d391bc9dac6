import { AgentwireError } from "@agentwire-chat/protocol";
import { stopThreadTurn } from "../chat/stop-thread-turn.js";
import { ownThread } from "../turns/watch-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** `stop`: aborts the thread's running turn (provider request and tools) or ends the one waiting on the user. */
export const handleStop: ChatCommandHandler<"stop"> = async (frame, conn, chat) => {
  const thread = await ownThread(conn, frame.data.thread_id);
  if (!(await stopThreadTurn(conn, chat, thread.id)))
    throw new AgentwireError("not_found", "no turn is running on this thread");
};

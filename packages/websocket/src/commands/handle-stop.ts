import { abortTurn, USER_STOP } from "@agentwire-chat/agents";
import { AgentwireError } from "@agentwire-chat/protocol";
import { stopWaitingTurn, waitingTurn } from "../chat/resume-turn.js";
import { ownThread } from "../turns/watch-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** `stop`: aborts the thread's running turn (provider request and tools) or ends the one waiting on the user. */
export const handleStop: ChatCommandHandler<"stop"> = async (frame, conn, chat) => {
  const thread = await ownThread(conn, frame.data.thread_id);
  const live = chat.turns.get(thread.id);
  if (live && live.status === "running") {
    // The turn's driver sees the abort, stores the partial answer and sends generation_stopped.
    abortTurn(live.abort, USER_STOP);
    return;
  }
  const owner = await chat.coordination?.remoteOwner(thread.id);
  if (owner) {
    // The turn runs on another instance: it stops there, and its frames reach this socket as usual.
    await chat.coordination?.stopRemote(owner, thread.id);
    return;
  }
  const waiting = await waitingTurn(conn, chat, thread.id);
  if (!waiting) throw new AgentwireError("not_found", "no turn is running on this thread");
  await stopWaitingTurn(conn, chat, waiting);
};

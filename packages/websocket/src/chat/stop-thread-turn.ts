import { abortTurn, USER_STOP } from "@agentwire-chat/agents";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";
import { stopWaitingTurn, waitingTurn } from "./resume-turn.js";

/**
 * Stops the thread's turn wherever it is: running here (its driver stores the partial answer and
 * sends generation_stopped), running on another instance (stopped there), or waiting on the user
 * (ended `stopped` here). False when no turn is running or waiting.
 */
export async function stopThreadTurn(
  conn: ConnectionContext,
  chat: ChatServices,
  threadId: string,
): Promise<boolean> {
  const live = chat.turns.get(threadId);
  if (live && live.status === "running") {
    abortTurn(live.abort, USER_STOP);
    return true;
  }
  const owner = await chat.coordination?.remoteOwner(threadId);
  if (owner) {
    await chat.coordination?.stopRemote(owner, threadId);
    return true;
  }
  const waiting = await waitingTurn(conn, chat, threadId);
  if (!waiting) return false;
  await stopWaitingTurn(conn, chat, waiting);
  return true;
}

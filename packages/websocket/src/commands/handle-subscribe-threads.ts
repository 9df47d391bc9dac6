import { liveStateOfTurn } from "../chat/thread-states/live-state-of-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/**
 * `subscribe_threads`: from now on this socket gets `thread_state` for every change of its user's
 * threads, first the current state of each that is not idle. Success answers nothing.
 */
export const handleSubscribeThreads: ChatCommandHandler<"subscribe_threads"> = async (_frame, conn, chat) => {
  await chat.threadStates.subscribe(
    { connectionId: conn.connectionId, userId: conn.userId, signal: conn.signal, send: (f) => conn.send(f) },
    async () => (await conn.repos.turns.activeTurns(conn.userId)).map(liveStateOfTurn),
  );
};

import { AgentwireError } from "../errors/agentwire-error.js";
import type { RunningTurn } from "../turns/running-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";

const cleanupRegistered = new WeakSet<AbortSignal>();

/** The chat services, or `unavailable` when the server runs without them. */
export function requireChat(conn: ConnectionContext): ChatServices {
  const chat = conn.services.chat;
  if (!chat) throw new AgentwireError("unavailable", "chat is not enabled on this server");
  return chat;
}

/** Makes the connection a watcher of the turn; when the socket closes it stops watching every turn. */
export function watchTurn(conn: ConnectionContext, chat: ChatServices, turn: RunningTurn): void {
  turn.watch(sinkOf(conn));
  if (!cleanupRegistered.has(conn.signal)) {
    cleanupRegistered.add(conn.signal);
    conn.signal.addEventListener("abort", () => chat.turns.unwatchAll(conn.connectionId), { once: true });
  }
}

/** The connection as a frame sink of turns. */
export function sinkOf(conn: ConnectionContext) {
  return {
    id: conn.connectionId,
    userId: conn.userId,
    send: (f: Parameters<ConnectionContext["send"]>[0]) => void conn.send(f),
  };
}

/** The user's thread row, or not_found (the same for a missing thread and someone else's). */
export function ownThread(conn: ConnectionContext, threadId: string) {
  const thread = conn.repos.threads.get(conn.userId, threadId);
  if (!thread) throw new AgentwireError("not_found", "thread not found");
  return thread;
}

import { AgentwireError } from "@agentwire-chat/protocol";
import type { ActiveTurn } from "./active-turn.js";
import type { TurnConnection } from "./turn-connection.js";

/** Makes the connection a watcher of the turn's thread (the socket's close unsubscribes it everywhere). */
export function watchTurn(conn: TurnConnection, turn: ActiveTurn): void {
  turn.watch({ id: conn.subscriber.id, userId: conn.userId, deliver: conn.subscriber.deliver });
}

/** The user's thread row, or not_found (the same for a missing thread and someone else's). */
export async function ownThread(conn: TurnConnection, threadId: string) {
  const thread = await conn.repos.threads.get(conn.userId, threadId);
  if (!thread) throw new AgentwireError("not_found", "thread not found");
  return thread;
}

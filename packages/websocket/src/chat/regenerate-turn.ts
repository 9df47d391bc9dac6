import { AgentwireError, type RegenerateData } from "@agentwire-chat/protocol";
import { ownThread } from "../turns/watch-turn.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";
import { runChatAgent } from "./run-chat-agent.js";

/**
 * `regenerate`: a new chat turn answers a user message of the thread (on any branch) again. Its rows
 * follow that message, beside the old answer, and the thread's current leaf moves to them; the model
 * sees the branch up to that message and nothing of the other answers. It answers with the provider
 * and model of the thread's latest turn (the message's own choice is not stored).
 */
export async function regenerateTurn(
  data: RegenerateData,
  conn: ConnectionContext,
  chat: ChatServices,
  requestId: string | undefined,
): Promise<void> {
  const thread = await ownThread(conn, data.thread_id);
  const message = await conn.repos.messages.get(conn.userId, thread.id, data.message_id);
  if (!message) throw new AgentwireError("not_found", "message_id: no such message in this thread");
  if (message.role !== "user" || message.content === null)
    throw new AgentwireError("bad_request", "message_id: only a user message can be answered again");
  const latest = await conn.repos.turns.latest(conn.userId, thread.id);
  const who = {
    ...(latest?.provider != null && { provider: latest.provider }),
    ...(latest?.model != null && { model: latest.model }),
  };
  await runChatAgent({ thread_id: thread.id, content: message.content, ...who }, conn, chat, requestId, {
    answer: message,
  });
}

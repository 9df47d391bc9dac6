import { AgentwireError } from "@agentwire/protocol";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";

/** The chat services, or `unavailable` when the server runs without them. */
export function requireChat(conn: ConnectionContext): ChatServices {
  const chat = conn.services.chat;
  if (!chat) throw new AgentwireError("unavailable", "chat is not enabled on this server");
  return chat;
}

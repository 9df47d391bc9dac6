import type { ClientCommandName, ClientFrameOf } from "@agentwire-chat/protocol";
import type { ChatServices } from "../chat/chat-services.js";
import type { ConnectionContext } from "../ws/connection-context.js";

/**
 * Handles one chat command with the chat services it is given (the command table binds them);
 * throw an AgentwireError to answer `error` with its code.
 */
export type ChatCommandHandler<C extends ClientCommandName> = (
  frame: ClientFrameOf<C>,
  conn: ConnectionContext,
  chat: ChatServices,
) => Promise<void>;

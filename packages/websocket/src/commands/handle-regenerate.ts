import { regenerateTurn } from "../chat/regenerate-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** `regenerate`: answers a user message of the thread again, as a new branch (see regenerateTurn). */
export const handleRegenerate: ChatCommandHandler<"regenerate"> = (frame, conn, chat) =>
  regenerateTurn(frame.data, conn, chat, frame.request_id);

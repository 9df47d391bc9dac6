import { extendTurn } from "../chat/extend-turn.js";
import type { ChatCommandHandler } from "./chat-command-handler.js";

/** `continue_turn`: extends the thread's last turn, ended by a budget or the iteration limit (see extendTurn). */
export const handleContinueTurn: ChatCommandHandler<"continue_turn"> = (frame, conn, chat) =>
  extendTurn(conn, chat, frame.data.thread_id);

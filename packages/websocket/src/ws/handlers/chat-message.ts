import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `chat_message` (starts a chat turn): the frame is already validated; answered `unavailable` until implemented. */
export const handleChatMessage: CommandHandler<"chat_message"> = () => {
  throw unavailable("chat_message");
};

import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `answer` (answers a pending ask_user question): the frame is already validated; answered `unavailable` until implemented. */
export const handleAnswer: CommandHandler<"answer"> = () => {
  throw unavailable("answer");
};

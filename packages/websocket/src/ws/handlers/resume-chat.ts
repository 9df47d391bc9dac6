import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `resume_chat` (replays a turn's frames after last_seq): the frame is already validated; answered `unavailable` until implemented. */
export const handleResumeChat: CommandHandler<"resume_chat"> = () => {
  throw unavailable("resume_chat");
};

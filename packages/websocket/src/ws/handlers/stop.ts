import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `stop` (cancels the running turn of a thread): the frame is already validated; answered `unavailable` until implemented. */
export const handleStop: CommandHandler<"stop"> = () => {
  throw unavailable("stop");
};

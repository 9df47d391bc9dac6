import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `tool_result` (returns a client-side tool's result): the frame is already validated; answered `unavailable` until implemented. */
export const handleToolResult: CommandHandler<"tool_result"> = () => {
  throw unavailable("tool_result");
};

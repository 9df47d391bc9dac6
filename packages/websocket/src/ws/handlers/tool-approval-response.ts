import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `tool_approval_response` (answers a tool approval request): the frame is already validated; answered `unavailable` until implemented. */
export const handleToolApprovalResponse: CommandHandler<"tool_approval_response"> = () => {
  throw unavailable("tool_approval_response");
};

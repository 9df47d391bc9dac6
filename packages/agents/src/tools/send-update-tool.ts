import { z } from "zod";
import { defineTool, ok } from "./define-tool.js";

export const SEND_UPDATE = "send_update";

/**
 * Tells the user how the work is going without ending the turn: a `progress_update` frame of the
 * turn (stored in its frame log and replayed like any other), nested under the call's level.
 */
export const sendUpdateTool = defineTool({
  name: SEND_UPDATE,
  description:
    "Send the user a short progress message while you keep working (what you finished, what comes next). " +
    "It does not end your turn and the user does not reply to it; use it on long tasks, not for the final answer.",
  args: z.object({
    message: z.string().min(1).max(2000).describe("The progress message, one or two sentences."),
  }),
  permissionClass: "safe",
  parallelSafe: true,
  execute: async ({ message }, ctx) => {
    ctx.emit?.({
      type: "progress_update",
      tool_call_id: ctx.toolCallId,
      message,
      parent_id: ctx.parentId,
      depth: ctx.depth,
    });
    return ok("sent");
  },
});

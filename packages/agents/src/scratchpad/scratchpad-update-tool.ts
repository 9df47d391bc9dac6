import { ScratchpadOp } from "@agentwire-chat/protocol";
import { z } from "zod";
import { defineTool, ok, toolError } from "../tools/define-tool.js";
import type { Tool } from "../tools/tool.js";
import { ScratchpadOpError, type ScratchpadStore } from "./scratchpad-store.js";

/** At most this many ops in one call: a scratchpad is kept in small steps. */
export const MAX_SCRATCHPAD_OPS = 20;

const args = z.object({ ops: z.array(ScratchpadOp).min(1).max(MAX_SCRATCHPAD_OPS) });

const description = [
  "Update your scratchpad for this conversation: the tasks, notes, ideas, open questions and assumptions you",
  "keep track of across turns. It is shown to you at the start of every turn (with each item's id) and to the user.",
  "Use it for multi-step work (add a task per step and resolve it when done), for facts or decisions you will need",
  "later, and for open questions or assumptions to confirm. Ops, applied in order, all or nothing:",
  '{"op":"add","kind":"task|note|idea|question|assumption","title":"…","details?":"…","related_ids?":["s1"]},',
  '{"op":"update","id":"s1", and any of kind, title, details, related_ids}, {"op":"resolve","id":"s1"} when done or',
  'answered, {"op":"discard","id":"s1"} when no longer relevant. Items are never deleted: resolve or discard them.',
  "Ids (s1, s2, …) are assigned by the scratchpad; the result tells you the new ones.",
].join(" ");

/** The tool's name, reserved from client UI tools by the server. */
export const SCRATCHPAD_UPDATE = "scratchpad_update";

/**
 * scratchpad_update over one thread's store. The store is bound to the turn's user and thread by the
 * server, so nothing in the arguments can reach another thread. The changed items go out as a
 * `scratchpad_patch` frame of the turn; the model gets the changed ids back.
 */
export function createScratchpadUpdateTool(store: ScratchpadStore): Tool {
  return defineTool({
    name: SCRATCHPAD_UPDATE,
    description,
    args,
    permissionClass: "safe",
    // Ops of two calls in one model turn must apply in the order the model wrote them.
    parallelSafe: false,
    async execute({ ops }, ctx) {
      let changed: Awaited<ReturnType<ScratchpadStore["apply"]>>;
      try {
        changed = await store.apply(ops);
      } catch (error) {
        if (error instanceof ScratchpadOpError) return toolError(error.message);
        return toolError("the scratchpad is unavailable; try again later");
      }
      ctx.emit?.({ type: "scratchpad_patch", items: changed });
      return ok({
        changed: changed.map((item) => ({
          id: item.id,
          kind: item.kind,
          status: item.status,
          title: item.title,
        })),
      });
    },
  });
}

import { randomUUID } from "node:crypto";
import type { Tool } from "@agentwire-chat/agents";

/** Whether the user allowed a tool for the rest of the thread (`allow_for_thread`, stored with the thread). */
export type ThreadGrantCheck = (toolName: string) => Promise<boolean>;

/**
 * Wraps a tool whose class the policy gates with `ask`: unless the user allowed it for the thread, a
 * call suspends the turn with an approval request instead of running. On `allow`, the resumed loop
 * runs the call with the original, unwrapped tool (see runAgentLoop's `approved` answer from a suspension).
 */
export function withApproval(tool: Tool, granted: ThreadGrantCheck): Tool {
  return {
    ...tool,
    validate: (args) => tool.validate(args),
    async execute(args, ctx) {
      if (await granted(tool.name)) return tool.execute(args, ctx);
      return {
        type: "suspend",
        suspension: {
          kind: "approval",
          approvalId: `appr_${randomUUID()}`,
          toolName: tool.name,
          permissionClass: tool.permissionClass,
          args,
        },
      };
    },
  };
}

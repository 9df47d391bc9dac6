import { randomUUID } from "node:crypto";
import type { Tool } from "@agentwire/agents";

/** Tools a user allowed for the rest of a thread (`allow_for_thread`), by thread. In memory. */
export class ThreadGrants {
  private readonly byThread = new Map<string, Set<string>>();

  grant(threadId: string, toolName: string): void {
    let set = this.byThread.get(threadId);
    if (!set) {
      set = new Set();
      this.byThread.set(threadId, set);
    }
    set.add(toolName);
  }

  has(threadId: string, toolName: string): boolean {
    return this.byThread.get(threadId)?.has(toolName) ?? false;
  }
}

/**
 * Wraps a tool whose class the policy gates with `ask`: unless the user allowed it for the thread, a
 * call suspends the turn with an approval request instead of running. The approved call is run by
 * the `tool_approval_response` handler with the original, unwrapped tool.
 */
export function withApproval(tool: Tool, threadId: string, grants: ThreadGrants): Tool {
  return {
    ...tool,
    validate: (args) => tool.validate(args),
    async execute(args, ctx) {
      if (grants.has(threadId, tool.name)) return tool.execute(args, ctx);
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

import { createScratchpadUpdateTool, type Tool } from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";
import type { ToolScope } from "../tools/tool-scope.js";

/**
 * scratchpad_update bound to the turn's own user and thread: the ids come from the scope the server
 * built, never from the model's arguments, so no call can reach another thread's scratchpad.
 */
export function scratchpadTool(input: { scope: ToolScope; repos: Repositories }): Tool {
  const { scope, repos } = input;
  return createScratchpadUpdateTool({
    apply: (ops) => repos.scratchpad.apply(scope.userId, scope.threadId, ops),
  });
}

import { sendUpdateTool, type Tool } from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";
import type { ToolScope } from "../tools/tool-scope.js";
import type { ChatServices } from "./chat-services.js";
import { planTool } from "./plan-tools.js";
import { scratchpadTool } from "./scratchpad-tool.js";

/** What the conversation tools of a turn are built from. */
export type ConversationToolsInput = {
  chat: ChatServices;
  scope: ToolScope;
  repos: Repositories;
};

/**
 * The tools every chat turn has whatever the deployment's server tools are, because they work on the
 * conversation itself (its scratchpad, its plans, progress updates to the user). They still pass
 * through the policy like any other tool.
 */
export function conversationTools(_input: ConversationToolsInput): Tool[] {
  const tools: Tool[] = [sendUpdateTool, scratchpadTool(_input), planTool(_input)];
  return tools;
}

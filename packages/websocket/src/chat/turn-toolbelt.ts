import { agentSystemPrompt, RUN_SUBTASK, type Tool } from "@agentwire/agents";
import type { FastifyBaseLogger } from "fastify";
import type { Repositories } from "../db/repositories.js";
import { withApproval } from "./approval-gate.js";
import type { ChatServices, ToolScope } from "./chat-services.js";
import { composeToolbelt } from "./compose-toolbelt.js";
import { conversationTools } from "./conversation-tools.js";

export type TurnToolbelt = {
  /** The tools as the loop runs them (gated ones wrapped for approval). */
  tools: Tool[];
  /** The same tools unwrapped, by name: what an approved call runs. */
  unwrapped: Map<string, Tool>;
  systemPrompt: string;
};

/** The toolbelt and root system prompt of a turn, from the server's tools and the user's policy. */
export async function turnToolbelt(
  chat: ChatServices,
  scope: ToolScope,
  memoryEnabled: boolean,
  logger: FastifyBaseLogger,
  repos: Repositories,
): Promise<TurnToolbelt> {
  const editor = scope.chatContext.kind === "editor";
  const belt = composeToolbelt({
    chatContext: scope.chatContext,
    policy: chat.policyFor(scope.userId),
    serverTools: [...(await chat.serverTools(scope)), ...conversationTools({ chat, scope, repos })],
    ...(editor && chat.editorTools && { editorTools: await chat.editorTools(scope) }),
    ...(editor && chat.clientTools && { clientTools: chat.clientTools(scope) }),
    hasNodeRegistry: chat.editorTools !== undefined,
    memoryEnabled,
    warn: (message) => logger.warn(message),
  });
  const grants = chat.grants;
  const tools = belt.map((e) => (e.needsApproval ? withApproval(e.tool, scope.threadId, grants) : e.tool));
  const systemPrompt = agentSystemPrompt({
    canSpawnSubtasks: tools.some((t) => t.name === RUN_SUBTASK) && chat.limits.MAX_DEPTH > 0,
    ...(chat.systemPromptExtra !== undefined && { extra: chat.systemPromptExtra }),
  });
  return { tools, unwrapped: new Map(belt.map((e) => [e.tool.name, e.tool])), systemPrompt };
}

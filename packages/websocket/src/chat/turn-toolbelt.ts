import { agentSystemPrompt, type ModelSettings, RUN_SUBTASK, type Tool } from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import type { ToolScope } from "../tools/tool-scope.js";
import { withApproval } from "./approval-gate.js";
import type { ChatServices } from "./chat-services.js";
import { composeToolbelt } from "./compose-toolbelt.js";
import { conversationTools } from "./conversation-tools.js";

export type TurnToolbelt = {
  /** The tools as the loop runs them (gated ones wrapped for approval). */
  tools: Tool[];
  /** The same tools unwrapped, by name: what an approved call runs. */
  unwrapped: Map<string, Tool>;
  systemPrompt: string;
  /** The scope's guidance, for the levels and helper calls below the root (`LoopContext.guidance`). */
  guidance?: string;
  /**
   * The turn's model settings, resolved from its scope and model each time the turn (re)starts: a
   * resumed or recovered turn runs with the scope's and table's settings as they are then.
   */
  settings?: ModelSettings;
};

/**
 * The toolbelt and root system prompt of a turn, from the server's tools, the user's policy and the
 * context scope `chat_context.kind` selects (its guidance, tools, plan mode, budget and model settings).
 */
export async function turnToolbelt(
  chat: ChatServices,
  given: ToolScope,
  memoryEnabled: boolean,
  logger: FastifyBaseLogger,
  repos: Repositories,
): Promise<TurnToolbelt> {
  const kind = given.chatContext.kind;
  const context = chat.scopes.forTurn(kind);
  const planMode = given.planMode ?? context.planMode;
  const scope: ToolScope = { ...given, ...(planMode !== undefined && { planMode }) };
  const editor = context.base === "editor" || context.add.length > 0;
  const belt = composeToolbelt({
    chatContext: scope.chatContext,
    scope: context,
    policy: chat.policyFor(scope.userId),
    serverTools: [...(await chat.serverTools(scope)), ...conversationTools({ chat, scope, repos })],
    ...(editor && chat.editorTools && { editorTools: await chat.editorTools(scope) }),
    ...(editor && chat.clientTools && { clientTools: chat.clientTools(scope) }),
    hasNodeRegistry: chat.editorTools !== undefined,
    memoryEnabled,
    warn: (message) => logger.warn(message),
  });
  const granted = (toolName: string) => repos.toolGrants.has(scope.userId, scope.threadId, toolName);
  const tools = belt.map((e) => (e.needsApproval ? withApproval(e.tool, granted) : e.tool));
  const extra = [chat.systemPromptExtra, context.guidance].filter((s) => s !== undefined).join("\n\n");
  const systemPrompt = agentSystemPrompt({
    canSpawnSubtasks:
      tools.some((t) => t.name === RUN_SUBTASK) && chat.scopes.limitsFor(chat.limits, kind).MAX_DEPTH > 0,
    toolNames: tools.map((t) => t.name),
    ...(extra !== "" && { extra }),
  });
  const settings = chat.scopes.settingsFor(chat.modelSettings, kind, given);
  return {
    tools,
    unwrapped: new Map(belt.map((e) => [e.tool.name, e.tool])),
    systemPrompt,
    ...(context.guidance !== undefined && { guidance: context.guidance }),
    ...(settings !== undefined && { settings }),
  };
}

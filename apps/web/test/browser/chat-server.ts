import { type BudgetLimits, type ContextSettings, createProviderRegistry } from "@agentwire-chat/agents";
import type { ScriptedResponder } from "@agentwire-chat/agents/testing";
import { startChatServer as startScriptedChatServer } from "@agentwire-chat/testkit/chat-harness";
import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { createChatServices } from "../../../../packages/websocket/src/index.js";
import { lookupPriceTool, saveNoteTool } from "./test-tools.js";

export type ChatServerOptions = {
  respond: ScriptedResponder;
  auth?: "none" | "token";
  /** Where save_note writes. */
  workspaceDir: string;
  /** Turn budget limits, e.g. a subtask budget small enough to run out. */
  limits?: Partial<BudgetLimits>;
  /** Context budget and rolling summary on (CONTEXT_*): turns send `context_usage` frames. */
  context?: ContextSettings;
};

/**
 * The real server with the real chat turn (the shared chat harness), its only provider a
 * ScriptedProvider. Browser pages connect from the server's own origin; the harness's port is only
 * known after it listens, so the origin allowlist is `*` here. Writes ask first, so save_note
 * brings up the approval prompt.
 */
export async function startChatServer(options: ChatServerOptions): Promise<TestServer> {
  const server = await startScriptedChatServer(options.respond, {
    auth: options.auth ?? "none",
    allowedOrigins: ["*"],
    policy: { workspaceWrite: "ask" },
    extraTools: [lookupPriceTool, saveNoteTool(options.workspaceDir)],
    ...(options.limits && { limits: options.limits }),
  });
  // The shared harness takes no context settings; turns read them from the services as they start.
  if (options.context) server.chat.context = options.context;
  return server;
}

/** The real server with the chat route and no provider at all: what a fresh start without API keys runs. */
export function startServerWithoutProviders(): Promise<TestServer> {
  const chat = createChatServices({ providers: createProviderRegistry({}) });
  return startTestServer({
    allowedOrigins: ["*"],
    services: { chat },
  });
}

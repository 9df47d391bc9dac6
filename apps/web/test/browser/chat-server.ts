import type { ScriptedResponder } from "@agentwire/agents/testing";
import { startChatServer as startScriptedChatServer } from "../../../../packages/websocket/test/chat/chat-harness.js";
import type { TestServer } from "../../../../packages/websocket/test/harness.js";
import { lookupPriceTool, saveNoteTool } from "./test-tools.js";

export type ChatServerOptions = {
  respond: ScriptedResponder;
  auth?: "none" | "token";
  /** Where save_note writes. */
  workspaceDir: string;
};

/**
 * The real server with the real chat turn (the shared chat harness), its only provider a
 * ScriptedProvider. Browser pages connect from the server's own origin; the harness's port is only
 * known after it listens, so the origin allowlist is `*` here. Writes ask first, so save_note
 * brings up the approval prompt.
 */
export function startChatServer(options: ChatServerOptions): Promise<TestServer> {
  return startScriptedChatServer(options.respond, {
    auth: options.auth ?? "none",
    allowedOrigins: ["*"],
    policy: { workspaceWrite: "ask" },
    extraTools: [lookupPriceTool, saveNoteTool(options.workspaceDir)],
  });
}

import type { ScriptedProvider } from "@agentwire/agents/testing";
import type { AgentwireServices } from "../../../../packages/websocket/src/index.js";
import { startTestServer, type TestServer } from "../../../../packages/websocket/test/harness.js";

export type ChatServerOptions = {
  provider: ScriptedProvider;
  auth?: "none" | "token";
  /** A workspace folder for list_files/read_file/write_file. */
  workspaceDir: string;
  /** write_file asks the user first (tool_approval_request), as `TOOL_WORKSPACE_WRITE=ask` would. */
  askBeforeWrites: boolean;
};

/**
 * The real server (the shared test harness) with the chat turn driven by a ScriptedProvider.
 * Browser pages connect from the server's own origin; the harness's port is only known after it
 * listens, so the origin allowlist is `*` here.
 */
export async function startChatServer(options: ChatServerOptions): Promise<TestServer> {
  return startTestServer({
    auth: options.auth ?? "none",
    allowedOrigins: ["*"],
    services: chatTurnServices(options),
  });
}

/**
 * The services the real `chat_message` handler needs: a provider registry holding the scripted
 * provider as the default (createProviderRegistry({}, {extraProviders: [provider],
 * extraDefaultModels: {[provider.id]: "scripted-model"}})), a TurnRegistry, the tool policy and the
 * workspace. AgentwireServices is still empty and `chat_message` still answers `unavailable`, so
 * there is nothing to build yet: fill this in with the chat turn's own service factory when it lands.
 */
function chatTurnServices(_options: ChatServerOptions): AgentwireServices {
  throw new Error(
    "apps/web/test/browser/chat-server.ts: the chat turn is not wired into the server yet " +
      "(chat_message answers `unavailable`); build its services here with the ScriptedProvider",
  );
}

/**
 * A server process for the crash test: the real start-up (`startServer` of apps/server, which the
 * process entry uses) with a scripted provider whose second answer streams a little and then never
 * ends, over the database file named by DATABASE_PATH. Prints `{"url": ...}` once it listens; the
 * test kills it with SIGKILL in the middle of the turn.
 */
import { createProviderRegistry } from "@agentwire-chat/agents";
import { ScriptedProvider } from "@agentwire-chat/agents/testing";
import { loadConfig, startServer } from "@agentwire-chat/server";
import { createChatServices, createLogger } from "@agentwire-chat/websocket";
import { echoTool } from "./test-tools.js";

const provider = new ScriptedProvider([
  { text: "Looking it up.", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] },
  { text: ["Half an ", "answer"], hold: "until-aborted" },
]);
const providers = createProviderRegistry(
  {},
  { extraProviders: [provider], extraDefaultModels: { scripted: "scripted-1" } },
);
const base = createChatServices({ providers });
const chat = createChatServices({
  providers,
  defaults: { provider: "scripted" },
  serverTools: async (scope) => [...(await base.serverTools(scope)), echoTool()],
});
const config = loadConfig({ DATABASE_PATH: process.env.DATABASE_PATH, PORT: "0", LOG_LEVEL: "silent" });
const server = await startServer(config, {
  services: { chat },
  logger: createLogger({ level: "silent" }),
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

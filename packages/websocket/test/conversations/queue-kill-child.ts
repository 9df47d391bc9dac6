/**
 * A server process for the queue kill -9 test: the real start-up (`startServer`) over DATABASE_PATH (or
 * DATABASE_URL: Postgres) with a scripted model whose answer to "first" streams a little and then never
 * ends; every other message is answered `re:<text>`. Prints `{"url": ...}` once it listens.
 */
import { createProviderRegistry } from "@agentwire-chat/agents";
import { ScriptedProvider } from "@agentwire-chat/agents/testing";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { startServer } from "../../../../apps/server/src/start-server.js";
import { createChatServices, createLogger } from "../../src/index.js";

const provider = new ScriptedProvider((request) => {
  const user = request.messages.filter((m) => m.role === "user").at(-1);
  const text = typeof user?.content === "string" ? user.content : "";
  return text === "first" ? { text: ["Half ", "an answer"], hold: "until-aborted" } : { text: `re:${text}` };
});
const providers = createProviderRegistry(
  {},
  { extraProviders: [provider], extraDefaultModels: { scripted: "scripted-1" } },
);
const config = loadConfig({
  DATABASE_PATH: process.env.DATABASE_PATH,
  DATABASE_URL: process.env.DATABASE_URL,
  PORT: "0",
  LOG_LEVEL: "silent",
});
const server = await startServer(config, {
  services: { chat: createChatServices({ providers, defaults: { provider: "scripted" } }) },
  logger: createLogger({ level: "silent" }),
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

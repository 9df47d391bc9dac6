/**
 * A server process for the crash-continue tests: the real start-up (`startServer`, restart recovery
 * included) over DATABASE_PATH (or DATABASE_URL: Postgres) with the chat services of CONTINUE_SCENARIO, its tools' side effects in
 * SIDE_EFFECT_DIR. TURN_MAX_RECOVERIES passes through. Prints `{"url": ...}` once it listens.
 */
import { loadConfig, startServer } from "@agentwire-chat/server";
import { createLogger } from "@agentwire-chat/websocket";
import { type ContinueScenario, continueChat } from "./continue-scenarios.js";

const scenario = process.env.CONTINUE_SCENARIO as ContinueScenario;
const config = loadConfig({
  DATABASE_PATH: process.env.DATABASE_PATH,
  DATABASE_URL: process.env.DATABASE_URL,
  PORT: "0",
  LOG_LEVEL: "silent",
  TURN_MAX_RECOVERIES: process.env.TURN_MAX_RECOVERIES,
});
const server = await startServer(config, {
  services: { chat: continueChat(scenario, process.env.SIDE_EFFECT_DIR as string, true).chat },
  logger: createLogger({ level: "silent" }),
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

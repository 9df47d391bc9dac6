/**
 * A server process for the Responses crash test: the real start-up over DATABASE_PATH (or DATABASE_URL)
 * with `openai` on the Responses API at RESPONSES_URL. Prints `{"url": ...}` once it listens.
 */
import { loadConfig } from "../../../../apps/server/src/config.js";
import { startServer } from "../../../../apps/server/src/start-server.js";
import { createLogger } from "../../src/index.js";
import { responsesChat } from "./responses-mock.js";

const config = loadConfig({
  DATABASE_PATH: process.env.DATABASE_PATH,
  DATABASE_URL: process.env.DATABASE_URL,
  PORT: "0",
  LOG_LEVEL: "silent",
});
const server = await startServer(config, {
  services: { chat: responsesChat(process.env.RESPONSES_URL as string) },
  logger: createLogger({ level: "silent" }),
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

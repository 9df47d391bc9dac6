/**
 * A server process for the kill -9 tests: the real start-up (`startServer`) over DATABASE_PATH with
 * the chat services of KILL_SCENARIO. With CRASH_IN_COMMIT set, a temporary trigger makes the process
 * SIGKILL itself inside the group commit that writes the first text of the turn's second model call
 * ("never "), so it dies in the middle of the transaction. Keyed on what the batch holds, not on its
 * seq: how a busy machine groups the first frames into commits varies, the second call's text does not
 * share a commit with the first call's (a tool call and a delayed provider step lie between them). Prints `{"url": ...}` once it listens.
 */

import { sqliteHandle } from "@agentwire-chat/storage/sqlite";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { startServer } from "../../../../apps/server/src/start-server.js";
import { createLogger } from "../../src/index.js";
import { type KillScenario, scenarioChat } from "./kill-scenarios.js";

const scenario = process.env.KILL_SCENARIO as KillScenario;
const config = loadConfig({ DATABASE_PATH: process.env.DATABASE_PATH, PORT: "0", LOG_LEVEL: "silent" });
const server = await startServer(config, {
  services: { chat: scenarioChat(scenario) },
  logger: createLogger({ level: "silent" }),
});
if (process.env.CRASH_IN_COMMIT) {
  const sqlite = sqliteHandle(server.storage);
  sqlite.function("crash_now", () => process.kill(process.pid, "SIGKILL"));
  sqlite.exec(
    `CREATE TEMP TRIGGER crash_in_commit AFTER INSERT ON frame_batches WHEN instr(NEW.frames, '"content":"never "') > 0 BEGIN SELECT crash_now(); END`,
  );
}
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

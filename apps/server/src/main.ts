#!/usr/bin/env node
// The process entry: config → logger → database + migrations → listen → signal handlers.
import { createLogger } from "@agentwire/websocket";
import { ConfigError, describeConfig, loadConfig } from "./config.js";
import { installSignalHandlers } from "./install-signal-handlers.js";
import { startServer } from "./start-server.js";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`agentwire: ${error.message}\n`);
  process.exit(1);
}

const logger = createLogger({ level: config.logLevel });
logger.info({ config: describeConfig(config) }, "starting");
try {
  const server = await startServer(config, { logger });
  installSignalHandlers(() => server.close(), logger);
  logger.info({ url: server.url }, "agentwire listening");
} catch (err) {
  logger.fatal({ err }, "failed to start");
  process.exit(1);
}

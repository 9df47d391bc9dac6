#!/usr/bin/env node
// The process entry: config → logger → database + migrations → listen → signal handlers.
import { createLogger } from "@agentwire-chat/websocket";
import { ConfigError, describeConfig, loadConfig } from "./config.js";
import { renderConfigText } from "./config-reference.js";
import { installSignalHandlers } from "./install-signal-handlers.js";
import { plainLogDestination } from "./plain-log-lines.js";
import { startServer } from "./start-server.js";
import { startSummary } from "./start-summary.js";
import { reloadOnSighup } from "./tool-policy-file.js";

// Before the config is read: --help must work with a broken environment, and start nothing.
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(renderConfigText());
  process.exit(0);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`agentwire: ${error.message}\n`);
  process.exit(1);
}

// On a terminal a person reads: a summary, then warnings and errors only, as plain lines, unless
// LOG_LEVEL asks for more. Anywhere else (a pipe, a container log, systemd): JSON lines, as configured.
const tty = process.stdout.isTTY === true;
const logLevelFromEnv = Boolean(process.env.LOG_LEVEL);
const level = tty && !logLevelFromEnv ? "warn" : config.logLevel;
const logger = createLogger({ level, ...(tty && { destination: plainLogDestination() }) });
logger.info({ config: describeConfig(config) }, "starting");
try {
  const server = await startServer(config, { logger });
  installSignalHandlers(() => server.close(), logger);
  const reload = server.reloadToolPolicy;
  if (reload) reloadOnSighup(reload);
  logger.info({ url: server.url }, "agentwire listening");
  if (tty) {
    const facts = { url: server.url, webDist: server.webDist, logLevel: level, logLevelFromEnv };
    process.stdout.write(startSummary(config, facts));
  }
} catch (err) {
  logger.fatal({ err }, "failed to start");
  process.exit(1);
}

import type { AgentwireServices } from "@agentwire/websocket";
import type { Logger } from "pino";
import type { Config } from "./config.js";

/**
 * Builds the services command handlers use (provider registry, turn registry, ...) from the config.
 * None exist yet; each new service is constructed here and declared on AgentwireServices where it lives.
 */
export function createServices(_config: Config, _logger: Logger): AgentwireServices {
  return {};
}

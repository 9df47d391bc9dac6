import { toolCommandHandlers } from "../tools/tool-command-handlers.js";
import type { AgentwireServices } from "../ws/agentwire-services.js";
import type { CommandHandlers } from "../ws/command-router.js";
import { handlePing } from "../ws/handle-ping.js";
import { chatCommandHandlers } from "./chat-command-handlers.js";

/**
 * The command table of the services actually present: chat commands with chat services, client tool
 * commands with the UI tool proxy, `ping` always. A command left out answers `unavailable`.
 */
export function commandTable(services: AgentwireServices): CommandHandlers {
  return {
    ping: handlePing,
    ...(services.chat && chatCommandHandlers),
    ...(services.uiTools && toolCommandHandlers),
  };
}

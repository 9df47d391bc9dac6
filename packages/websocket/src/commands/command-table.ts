import type { CommandHandlers } from "../ws/command-router.js";
import type { AgentwireServices } from "./agentwire-services.js";
import { chatCommandHandlers } from "./chat-command-handlers.js";
import { handlePing } from "./handle-ping.js";
import { toolCommandHandlers } from "./tool-command-handlers.js";

/**
 * The command table of the services actually present, each handler bound to its services: chat
 * commands with chat services, client tool commands with the UI tool proxy, `ping` always. A command
 * left out answers `unavailable`.
 */
export function commandTable(services: AgentwireServices): CommandHandlers {
  const { chat, uiTools } = services;
  return {
    ping: handlePing,
    ...(chat && chatCommandHandlers({ ...services, chat })),
    ...(uiTools && toolCommandHandlers(uiTools)),
  };
}

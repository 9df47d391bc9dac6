import type { CommandHandler } from "../command-router.js";
import { unavailable } from "./unavailable.js";

/** `client_tools_manifest` (announces the client's UI tools): the frame is already validated; answered `unavailable` until implemented. */
export const handleClientToolsManifest: CommandHandler<"client_tools_manifest"> = () => {
  throw unavailable("client_tools_manifest");
};

import { renderConfigText } from "@agentwire-chat/server/config-reference";
import type { CliIo, ExitCode } from "../cli-io.js";

/** `agentwire config`: the server's configuration reference, the same text as `agentwire-server --help`. */
export async function runConfigCommand(args: string[], io: CliIo): Promise<ExitCode> {
  if (args.length > 0) {
    io.stderr("usage: agentwire config   (prints the server's environment variables; takes no arguments)\n");
    return 2;
  }
  io.stdout(renderConfigText());
  return 0;
}

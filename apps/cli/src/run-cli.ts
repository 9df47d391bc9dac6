import type { CliIo, ExitCode } from "./cli-io.js";
import { runChatCommand } from "./commands/chat-command.js";
import { runMcpCommand } from "./commands/mcp-command.js";
import { runTokenCommand } from "./commands/token-command.js";

const USAGE = `usage: agentwire <command>
commands:
  chat ["question"] [--thread ID] [--url URL] [--token T] [--provider P] [--model M]
  mcp approve NAME
  token create --user NAME | token list [--user NAME] | token revoke ID
`;

/** The CLI's command table: subcommand → handler. */
const commands: Record<string, (args: string[], io: CliIo) => ExitCode | Promise<ExitCode>> = {
  chat: runChatCommand,
  mcp: runMcpCommand,
  token: runTokenCommand,
};

/** Dispatches `agentwire <command> ...args` and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : commands[name];
  if (command === undefined) {
    io.stderr(USAGE);
    return name === undefined || name === "help" || name === "--help" ? 0 : 2;
  }
  return command(args, io);
}

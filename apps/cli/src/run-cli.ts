import type { CliIo, ExitCode } from "./cli-io.js";

const USAGE = `usage: agentwire <command>
commands:
  chat ["question"] [--url URL] [--token T] [--thread ID] [--provider P] [--model M] [--verbose]
                    talk to a running server (agentwire chat --help for more)
  threads [--url URL] [--token T]
                    your threads with their live state, • marking new activity
  token create --user NAME | token list [--user NAME] | token revoke ID
                    API tokens in the server's database (DATABASE_URL, else DATABASE_PATH)
  mcp approve NAME  pin an MCP server's current tool definitions as approved
  config            the server's environment variables: meaning, type, default (as the server's --help)
`;

type Command = (args: string[], io: CliIo) => Promise<ExitCode>;

/**
 * The CLI's command table: subcommand → handler, each imported only when it runs, so `--help` and
 * `chat` never load the server and database code that `token` and `mcp` need.
 */
const commands: Record<string, () => Promise<Command>> = {
  chat: async () => (await import("./commands/chat-command.js")).runChatCommand,
  config: async () => (await import("./commands/config-command.js")).runConfigCommand,
  mcp: async () => (await import("./commands/mcp-command.js")).runMcpCommand,
  threads: async () => (await import("./commands/threads-command.js")).runThreadsCommand,
  token: async () => (await import("./commands/token-command.js")).runTokenCommand,
};

/** Dispatches `agentwire <command> ...args` and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  const [name, ...args] = argv;
  const load = name === undefined || !Object.hasOwn(commands, name) ? undefined : commands[name];
  if (load === undefined) {
    const asked = name === undefined || name === "help" || name === "--help" || name === "-h";
    (asked ? io.stdout : io.stderr)(USAGE);
    return asked ? 0 : 2;
  }
  return (await load())(args, io);
}

import type { CliIo, ExitCode } from "../cli-io.js";

const CHAT_USAGE = `usage: agentwire chat ["question"] [options]
Without a question: interactive (an empty line does nothing, Ctrl-D ends). At the prompt:
  /continue         continue a turn its budget or the iteration limit stopped
  /retry            answer the last message again (a new branch beside the old answer)
  /edit TEXT        send TEXT in place of the last message (a new branch from before it)
  /branches         list the versions of the last message and of its answer (* the one shown)
A line typed while a turn runs is queued (shown as "queued (N): text") and runs after it.
Ctrl-C stops the running turn (the next queued message then starts); a second Ctrl-C exits.
Exit status: 0 answered, 1 failed (or stopped otherwise), 2 bad usage, 130 stopped with Ctrl-C.
options:
  --url URL         the server's socket (default ws://127.0.0.1:8787/ws; env AGENTWIRE_URL);
                    http(s)://host:port works too
  --token T         API token, for a server with AUTH_MODE=token (env AGENTWIRE_TOKEN)
  --thread ID       continue a thread (its id is printed as "· thread ID"; see agentwire threads):
                    shows its last messages, and takes up a turn that runs or waits on it
  --continue        with --thread, no question: continue the thread's last turn, which its budget
                    or the iteration limit stopped (interactive: /continue after such a turn)
  --provider P      provider for this chat (default: the server's DEFAULT_PROVIDER)
  --model M         model for this chat (default: the server's DEFAULT_MODEL)
  --verbose         show each subtask's result under its finish line
  --help            this text`;

/** What `agentwire chat` was asked to do. */
export type ChatOptions = {
  question?: string;
  thread?: string;
  url: string;
  token?: string;
  provider?: string;
  model?: string;
  verbose: boolean;
  /** Continue the thread's last turn (`continue_turn`) instead of sending a question. */
  continue?: boolean;
};

const VALUE_OPTIONS = ["thread", "url", "token", "provider", "model"] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];

/** Parses `agentwire chat` arguments over the environment's defaults; an exit code when done already. */
export function parseChatArgs(args: string[], io: CliIo): ChatOptions | ExitCode {
  const options: ChatOptions = { url: io.env.AGENTWIRE_URL || "ws://127.0.0.1:8787/ws", verbose: false };
  if (io.env.AGENTWIRE_TOKEN) options.token = io.env.AGENTWIRE_TOKEN;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const name = arg.slice(2);
    if (arg === "--agent") {
      io.stderr("agentwire chat: --agent is deprecated and changes nothing; the agent decides for itself\n");
    } else if (arg === "--verbose") {
      options.verbose = true;
    } else if (arg === "--continue") {
      options.continue = true;
    } else if (arg === "--help" || arg === "-h") {
      io.stdout(`${CHAT_USAGE}\n`);
      return 0;
    } else if (arg.startsWith("--") && VALUE_OPTIONS.includes(name as ValueOption)) {
      const value = args[++i];
      if (!value) {
        io.stderr(`${arg} needs a value\n${CHAT_USAGE}\n`);
        return 2;
      }
      options[name as ValueOption] = value;
    } else if (arg.startsWith("--") || options.question !== undefined) {
      io.stderr(`unexpected ${arg}\n${CHAT_USAGE}\n`);
      return 2;
    } else {
      options.question = arg;
    }
  }
  if (options.continue && (options.thread === undefined || options.question !== undefined)) {
    io.stderr(`--continue needs --thread ID and no question\n${CHAT_USAGE}\n`);
    return 2;
  }
  return options;
}

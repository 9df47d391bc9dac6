import { type ChatOptions, parseChatArgs } from "../chat/chat-options.js";
import { ChatSession, type SessionTerminal } from "../chat/chat-session.js";
import { openSocket, providerProblem, socketUrl } from "../chat/connect.js";
import { Interrupts } from "../chat/interrupts.js";
import { LineReader } from "../chat/line-reader.js";
import { LiveOutput } from "../chat/live-output.js";
import { plainOutput } from "../chat/turn-output.js";
import type { CliIo, ExitCode } from "../cli-io.js";

/** `agentwire chat`: talks to a running server over the same protocol as every client. */
export async function runChatCommand(args: string[], io: CliIo): Promise<ExitCode> {
  const options = parseChatArgs(args, io);
  if (typeof options === "number") return options;
  const url = socketUrl(options.url);
  if (!url) {
    io.stderr("agentwire chat: --url must be a ws://, wss://, http:// or https:// address\n");
    return 2;
  }
  // Both at once: the provider list may take a moment (a provider's model list is fetched).
  const [socket, problem] = await Promise.all([
    openSocket(url, options.token),
    providerProblem(url, options.token, options.provider),
  ]);
  if (!socket.ok) {
    io.stderr(`agentwire chat: ${socket.message}\n`);
    return 1;
  }
  if (problem) {
    socket.ws.close();
    io.stderr(`agentwire chat: ${problem}\n`);
    return 1;
  }
  const terminal = openTerminal(io);
  try {
    return await converse(new ChatSession(socket.ws, terminal, options), terminal, options);
  } finally {
    terminal.interrupts.close();
    terminal.lines.close();
    socket.ws.close();
  }
}

async function converse(
  session: ChatSession,
  terminal: SessionTerminal,
  options: ChatOptions,
): Promise<ExitCode> {
  if (options.question) return session.turn(options.question);
  for (;;) {
    terminal.write("> ");
    const question = await terminal.lines.next();
    if (question === undefined) {
      terminal.write("\n");
      return 0;
    }
    if (terminal.echoInput) terminal.write(`${question}\n`);
    if (question.trim()) await session.turn(question);
  }
}

/** A status area only on a real terminal; plain text into pipes and files. */
function openTerminal(io: CliIo): SessionTerminal {
  const live = process.stdout.isTTY === true && io.env.TERM !== "dumb";
  const liveOutput = live ? new LiveOutput(process.stdout) : undefined;
  const lines = new LineReader(process.stdin);
  return {
    output: liveOutput ?? plainOutput(io.stdout),
    live,
    columns: () => liveOutput?.columns ?? 80,
    lines,
    write: io.stdout,
    echoInput: process.stdin.isTTY !== true,
    // Ctrl-C at the prompt between turns ends the session, as the end of input does.
    interrupts: new Interrupts(() => lines.cancel()),
  };
}

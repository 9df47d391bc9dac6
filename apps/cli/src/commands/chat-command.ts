import { createClient, httpBase, socketUrl } from "@agentwire-chat/client";
import { type ChatOptions, parseChatArgs } from "../chat/chat-options.js";
import { ChatSession, type SessionTerminal } from "../chat/chat-session.js";
import { Interrupts } from "../chat/interrupts.js";
import { LineReader } from "../chat/line-reader.js";
import { LiveOutput } from "../chat/live-output.js";
import { providerProblem } from "../chat/provider-problem.js";
import { plainOutput } from "../chat/turn-output.js";
import { type SocketOutcome, watchedSocketClass } from "../chat/watched-socket.js";
import type { CliIo, ExitCode } from "../cli-io.js";
import { SeenThreads } from "../threads/seen-threads.js";

// A person waits at a terminal: after a drop, try again at least every 5 s rather than the SDK's 15.
const RECONNECT = { maxDelayMs: 5_000 };

/** `agentwire chat`: talks to a running server over the same protocol as every client, through the SDK. */
export async function runChatCommand(args: string[], io: CliIo): Promise<ExitCode> {
  const options = parseChatArgs(args, io);
  if (typeof options === "number") return options;
  const url = chatSocketUrl(options.url);
  if (!url) {
    io.stderr("agentwire chat: --url must be a ws://, wss://, http:// or https:// address\n");
    return 2;
  }
  let first: ((outcome: SocketOutcome) => void) | undefined;
  const firstSocket = new Promise<SocketOutcome>((resolve) => {
    first = resolve;
  });
  const client = createClient({
    url,
    ...(options.token && { token: options.token }),
    WebSocket: watchedSocketClass((outcome) => first?.(outcome)),
    reconnect: RECONNECT,
  });
  try {
    // Both at once: the provider list may take a moment (a provider's model list is fetched).
    const [socket, problem] = await Promise.all([
      firstSocket,
      providerProblem(httpBase(url), options.token, options),
    ]);
    // Only the first socket says whether the server is there at all; later drops are the SDK's to mend.
    first = undefined;
    if (!socket.ok) {
      io.stderr(`agentwire chat: ${socket.message}\n`);
      return 1;
    }
    if (problem) {
      io.stderr(`agentwire chat: ${problem}\n`);
      return 1;
    }
    const seen = new SeenThreads(io.env, httpBase(url));
    const looked = async (threadId: string) => {
      const thread = (await client.threads.list().catch(() => [])).find((t) => t.id === threadId);
      if (thread) seen.note({ [threadId]: thread.updated_at });
    };
    return await chat(new ChatSession(client, openTerminal(io), options, looked), options);
  } finally {
    client.close();
  }
}

async function chat(session: ChatSession, options: ChatOptions): Promise<ExitCode> {
  const { terminal } = session;
  try {
    return await converse(session, terminal, options);
  } finally {
    terminal.interrupts.close();
    terminal.lines.close();
  }
}

/**
 * The socket URL for what the user typed, or undefined when it is no ws(s)/http(s) address. A bare
 * `ws://host` gets `/ws` (the server upgrades only there), as an `http://host` base does in the SDK.
 */
function chatSocketUrl(input: string): string | undefined {
  try {
    const url = new URL(input);
    if (!["ws:", "wss:", "http:", "https:"].includes(url.protocol)) return undefined;
    const bare = (url.protocol === "ws:" || url.protocol === "wss:") && url.pathname === "/";
    return socketUrl(bare ? `${url.protocol}//${url.host}/ws${url.search}` : input);
  } catch {
    return undefined;
  }
}

async function converse(
  session: ChatSession,
  terminal: SessionTerminal,
  options: ChatOptions,
): Promise<ExitCode> {
  if (options.thread) {
    const code = await session.catchUp(options.thread);
    if (code === undefined) return 1;
    // A one-shot chat whose waiting turn was not brought to its end does not add a message to it.
    if ((options.question || options.continue) && code !== 0) return code;
  }
  if (options.continue) return session.continueTurn();
  if (options.question) return session.turn(options.question);
  for (;;) {
    // What was typed while the last turn ran goes first: a queued message's turn, or a line kept for now.
    const pending = session.takePending();
    if (pending?.turn) {
      await session.runQueued({ ...pending, turn: pending.turn });
      continue;
    }
    let line = pending?.content;
    if (line === undefined) {
      terminal.write("> ");
      line = await terminal.lines.next();
      if (line === undefined) {
        terminal.write("\n");
        return 0;
      }
      if (terminal.echoInput) terminal.write(`${line}\n`);
    } else terminal.write(`> ${line}\n`);
    await runLine(session, line);
  }
}

/** One line typed at the prompt: a command (`/continue`, `/retry`, `/edit TEXT`, `/branches`) or a message. */
async function runLine(session: ChatSession, line: string): Promise<void> {
  const text = line.trim();
  const command = text.split(/\s/, 1)[0];
  if (text === "/continue") await session.continueTurn();
  else if (text === "/retry") await session.retry();
  else if (text === "/branches") await session.branches();
  else if (command === "/edit") await session.edit(text.slice(command.length).trim());
  else if (text) await session.turn(line);
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

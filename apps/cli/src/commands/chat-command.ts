import { createInterface, type Interface } from "node:readline/promises";
import type { ServerFrame } from "@agentwire/protocol";
import WebSocket from "ws";
import type { CliIo, ExitCode } from "../cli-io.js";
import { initialRenderState, renderFrame } from "./render-frame.js";

const USAGE = `usage: agentwire chat ["question"] [--thread ID] [--url ws://127.0.0.1:8787/ws]
                      [--token T] [--provider P] [--model M]
Without a question: interactive. Ctrl-C stops the running turn; twice exits.
The token may also come from AGENTWIRE_TOKEN.`;

type ChatOptions = {
  question?: string;
  thread?: string;
  url: string;
  token?: string;
  provider?: string;
  model?: string;
};

/** `agentwire chat`: talks to a running server over the same protocol as every client. */
export async function runChatCommand(args: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseArgs(args, io);
  if (typeof parsed === "number") return parsed;
  const ws = new WebSocket(parsed.url, {
    ...(parsed.token && { headers: { authorization: `Bearer ${parsed.token}` } }),
  });
  const opened = await new Promise<Error | undefined>((resolve) => {
    ws.once("open", () => resolve(undefined));
    ws.once("error", resolve);
    ws.once("unexpected-response", (_req, res) =>
      resolve(new Error(`server refused: HTTP ${res.statusCode}`)),
    );
  });
  if (opened) {
    io.stderr(`agentwire chat: ${opened.message}\n`);
    return 1;
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
  try {
    const session = new ChatSession(ws, io, rl, parsed);
    if (parsed.question) return await session.turn(parsed.question);
    for (;;) {
      const question = await rl.question("> ").catch(() => undefined);
      if (question === undefined) return 0;
      if (question.trim()) await session.turn(question);
    }
  } finally {
    rl.close();
    ws.close();
  }
}

/** One connection: sends turns, renders their frames, answers questions and approvals at the prompt. */
class ChatSession {
  private threadId: string | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly io: CliIo,
    private readonly rl: Interface,
    private readonly options: ChatOptions,
  ) {
    this.threadId = options.thread;
  }

  turn(content: string): Promise<ExitCode> {
    const state = initialRenderState();
    const spinner = startSpinner(this.io);
    let interrupts = 0;
    return new Promise<ExitCode>((resolve) => {
      const onSigint = () => {
        interrupts += 1;
        if (interrupts > 1 || !this.threadId) return finish(1);
        this.send("stop", { thread_id: this.threadId });
      };
      const finish = (code: ExitCode) => {
        spinner.stop();
        process.off("SIGINT", onSigint);
        this.ws.off("message", onMessage);
        this.ws.off("close", onClose);
        resolve(code);
      };
      const onClose = () => finish(1);
      const onMessage = async (data: WebSocket.RawData) => {
        const frame = JSON.parse(String(data)) as ServerFrame;
        if ("thread_id" in frame && frame.thread_id && frame.type === "thread")
          this.threadId = frame.thread_id;
        spinner.clear();
        this.io.stdout(renderFrame(frame, state));
        if (frame.type === "question") await this.ask(frame.tool_call_id, frame.question);
        if (frame.type === "tool_approval_request")
          await this.approve(frame.approval_id, frame.tool_name, frame.args);
        if (frame.type === "error" && frame.seq === undefined) finish(1);
        if (frame.type === "chunk" && frame.done) finish(0);
      };
      process.on("SIGINT", onSigint);
      this.ws.on("message", onMessage);
      this.ws.once("close", onClose);
      this.send("chat_message", {
        content,
        ...(this.threadId && { thread_id: this.threadId }),
        ...(this.options.provider && { provider: this.options.provider }),
        ...(this.options.model && { model: this.options.model }),
      });
    });
  }

  private async ask(toolCallId: string, question: string): Promise<void> {
    const answer = await this.rl.question(`? ${question}\n> `);
    this.send("answer", { thread_id: this.threadId, tool_call_id: toolCallId, answer });
  }

  private async approve(approvalId: string, tool: string, args: unknown): Promise<void> {
    const reply = await this.rl.question(`? allow ${tool} ${JSON.stringify(args)}? [y]es / [t]hread / [n]o `);
    const decision = reply.startsWith("t") ? "allow_for_thread" : reply.startsWith("y") ? "allow" : "deny";
    this.send("tool_approval_response", { approval_id: approvalId, decision });
  }

  private send(command: string, data: unknown): void {
    this.ws.send(JSON.stringify({ command, data }));
  }
}

function startSpinner(io: CliIo) {
  if (!process.stderr.isTTY) return { stop() {}, clear() {} };
  const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
  let i = 0;
  const timer = setInterval(() => io.stderr(`\r${frames[i++ % frames.length]} `), 100);
  return {
    stop: () => {
      clearInterval(timer);
      io.stderr("\r  \r");
    },
    clear: () => io.stderr("\r  \r"),
  };
}

function parseArgs(args: string[], io: CliIo): ChatOptions | ExitCode {
  const options: ChatOptions = { url: io.env.AGENTWIRE_URL ?? "ws://127.0.0.1:8787/ws" };
  if (io.env.AGENTWIRE_TOKEN) options.token = io.env.AGENTWIRE_TOKEN;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = () => args[++i];
    switch (arg) {
      case "--agent":
        io.stderr(
          "agentwire chat: --agent is deprecated and changes nothing; the agent decides for itself\n",
        );
        break;
      case "--thread":
      case "--url":
      case "--token":
      case "--provider":
      case "--model": {
        const v = value();
        if (!v) {
          io.stderr(`${arg} needs a value\n${USAGE}\n`);
          return 2;
        }
        options[arg.slice(2) as "thread" | "url" | "token" | "provider" | "model"] = v;
        break;
      }
      case "--help":
        io.stdout(`${USAGE}\n`);
        return 0;
      default:
        if (arg.startsWith("--") || options.question !== undefined) {
          io.stderr(`unexpected ${arg}\n${USAGE}\n`);
          return 2;
        }
        options.question = arg;
    }
  }
  return options;
}

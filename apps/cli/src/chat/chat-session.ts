import type { ServerFrame } from "@agentwire/protocol";
import { preview } from "@agentwire/protocol/preview";
import type WebSocket from "ws";
import type { ExitCode } from "../cli-io.js";
import type { ChatOptions } from "./chat-options.js";
import type { Interrupts } from "./interrupts.js";
import type { LineReader } from "./line-reader.js";
import { renderFrame } from "./render-frame.js";
import { statusLines } from "./status-lines.js";
import { terminalText } from "./terminal-text.js";
import type { TurnOutput } from "./turn-output.js";
import { initialTurnState } from "./turn-state.js";

/** The terminal side of a session: where turns render, and where prompts read and write. */
export type SessionTerminal = {
  output: TurnOutput;
  /** True when the output has a status area (stdout is a terminal). */
  live: boolean;
  columns: () => number;
  lines: LineReader;
  /** Writes a prompt (or an echo) straight to stdout, outside any turn's output. */
  write: (text: string) => void;
  /** Piped input is not echoed by a terminal: the session shows each answer itself. */
  echoInput: boolean;
  interrupts: Interrupts;
};

const now = () => performance.now();

/** One connection: sends turns, renders their frames, answers questions and approvals at a prompt. */
export class ChatSession {
  private threadId: string | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly terminal: SessionTerminal,
    private readonly options: ChatOptions,
  ) {
    this.threadId = options.thread;
  }

  /** Sends one message and renders its turn to the end; 0 when it ended without an error. */
  turn(content: string): Promise<ExitCode> {
    const { output, lines, interrupts } = this.terminal;
    if (this.ws.readyState !== this.ws.OPEN) {
      output.write("! the connection to the server is closed\n");
      return Promise.resolve(1);
    }
    const state = initialTurnState(now());
    const showStatus = () => output.start(() => statusLines(state, now(), this.terminal.columns()));
    let presses = 0;
    let stopping = false;
    let prompting = false;
    let finished = false;
    let queue = Promise.resolve();

    return new Promise<ExitCode>((resolve) => {
      const finish = (code: ExitCode) => {
        if (finished) return;
        finished = true;
        output.stop();
        if (prompting) lines.cancel();
        endInterrupts();
        this.ws.off("message", onMessage);
        this.ws.off("close", onClose);
        resolve(code);
      };
      const onInterrupt = () => {
        presses += 1;
        if (presses > 1 || !this.threadId) return finish(1);
        stopping = true;
        // A question left unanswered goes away with the turn.
        if (prompting) lines.cancel();
        this.send("stop", { thread_id: this.threadId });
      };
      const onClose = (code: number) => {
        output.write(`${state.atLineStart ? "" : "\n"}! the server closed the connection (${code})\n`);
        finish(1);
      };
      /** Asks at the prompt with the status area gone (nothing moves while the user types). */
      const prompt = async (text: string): Promise<string | undefined> => {
        output.stop();
        prompting = true;
        this.terminal.write(text);
        const answer = await lines.next();
        prompting = false;
        if (answer !== undefined && this.terminal.echoInput) this.terminal.write(`${answer}\n`);
        if (answer === undefined && !finished) this.terminal.write("\n");
        if (!finished) showStatus();
        return answer;
      };
      const handle = async (frame: ServerFrame) => {
        if (finished) return;
        if ("thread_id" in frame && frame.thread_id) this.threadId = frame.thread_id;
        const text = renderFrame(frame, state, this.renderOptions(), now());
        if (text) output.write(text);
        else output.refresh();
        if (frame.type === "question") {
          const answer = await prompt("> ");
          if (answer !== undefined) {
            this.send("answer", { thread_id: this.threadId, tool_call_id: frame.tool_call_id, answer });
          } else if (!finished && !stopping) {
            output.write("! no answer (input ended): stopping the turn\n");
            state.failed = true;
            stopping = true;
            this.send("stop", { thread_id: this.threadId });
          }
        }
        if (frame.type === "tool_approval_request") {
          const args = terminalText(preview(frame.args, 120));
          const reply = await prompt(`? allow ${frame.tool_name} ${args}? [y]es / [t]hread / [n]o `);
          const decision = reply?.startsWith("t")
            ? "allow_for_thread"
            : reply?.startsWith("y")
              ? "allow"
              : "deny";
          this.send("tool_approval_response", { approval_id: frame.approval_id, decision });
        }
        // An error outside any turn (refused message): the turn never started.
        if (frame.type === "error" && frame.seq === undefined) finish(1);
        if (frame.type === "chunk" && frame.done) finish(state.failed ? 1 : 0);
      };
      const onMessage = (data: WebSocket.RawData) => {
        let frame: ServerFrame;
        try {
          frame = JSON.parse(String(data)) as ServerFrame;
        } catch {
          return;
        }
        // One frame at a time: frames after a question wait until it is answered.
        queue = queue.then(() => handle(frame));
      };
      const endInterrupts = interrupts.during(onInterrupt);
      this.ws.on("message", onMessage);
      this.ws.once("close", onClose);
      showStatus();
      this.send("chat_message", {
        content,
        ...(this.threadId && { thread_id: this.threadId }),
        ...(this.options.provider && { provider: this.options.provider }),
        ...(this.options.model && { model: this.options.model }),
      });
    });
  }

  private renderOptions() {
    return { verbose: this.options.verbose, live: this.terminal.live };
  }

  private send(command: string, data: unknown): void {
    this.ws.send(JSON.stringify({ command, data }));
  }
}

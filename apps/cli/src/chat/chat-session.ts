import {
  type Client,
  type ClientError,
  contentText,
  type SendOptions,
  type Turn,
} from "@agentwire-chat/client";
import type { ServerFrame, StoredMessage, ThreadListing } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import type { ExitCode } from "../cli-io.js";
import type { ChatOptions } from "./chat-options.js";
import type { Interrupts } from "./interrupts.js";
import type { LineReader } from "./line-reader.js";
import { renderFrame } from "./render-frame.js";
import { reconnectingLine, statusLines } from "./status-lines.js";
import { plural, terminalText } from "./terminal-text.js";
import { historyLines } from "./thread-history.js";
import type { TurnOutput } from "./turn-output.js";
import { initialTurnState, type TurnState } from "./turn-state.js";

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

/** What a turn that never got to its end says: the server lost it (a restart), or had none to resume. */
const END_LINES: Record<string, string> = {
  interrupted: "↯ interrupted: the server stopped during this turn (the thread goes on)",
  unknown: "! the server has no running turn on this thread",
};

/** Ends that `continue_turn` can take on. */
const CONTINUABLE = new Set(["budget_exceeded", "iteration_limit"]);

/** Statuses a command exits 1 for: the turn did not get to its answer. */
const FAILED = new Set(["error", "interrupted", "unknown"]);

/** How much of a queued message its line shows. */
const QUEUED_CHARS = 60;
const DIM = "\u001b[2m";
const UNDIM = "\u001b[22m";

/**
 * A line typed while a turn ran: sent at once to queue on the server (`turn`, onBusy queue), or kept
 * here to run after the turn (a command, or any line after one, so they keep their order).
 */
export type Pending = { content: string; turn?: Turn };

/**
 * One chat on the SDK's client: sends turns, renders their frames (each once, in order, across
 * reconnects), answers questions and approvals at a prompt.
 */
export class ChatSession {
  private threadId: string | undefined;
  /** Lines typed while a turn ran, oldest first, until their turn is followed (or they run). */
  private readonly pending: Pending[] = [];

  constructor(
    private readonly client: Client,
    readonly terminal: SessionTerminal,
    private readonly options: ChatOptions,
    /** Notes that the user saw the thread as it is now (for `agentwire threads`' marks). */
    private readonly looked: (threadId: string) => Promise<void> = async () => {},
  ) {
    this.threadId = options.thread;
  }

  /**
   * For `--thread`: shows the thread's last messages, then follows a turn that runs or waits on it
   * (its pending question asked at the prompt) so the next message is not refused as `busy`.
   * Undefined when the thread could not be read (said why), else the followed turn's exit code (0 with none).
   */
  async catchUp(threadId: string): Promise<ExitCode | undefined> {
    const { output } = this.terminal;
    let rows: StoredMessage[];
    let summary: ThreadListing | undefined;
    try {
      [rows, summary] = await Promise.all([
        this.client.threads.messages(threadId),
        this.client.threads.list().then((all) => all.find((t) => t.id === threadId)),
      ]);
    } catch (error) {
      const e = error as ClientError;
      output.write(`! ${e.code}: ${terminalText(e.message)}\n`);
      return undefined;
    }
    const live = summary?.state === "running" || summary?.state === "waiting_user";
    const lines = historyLines(rows, live);
    output.write([`· thread ${threadId}`, ...lines, ""].join("\n"));
    const code = live ? (await this.follow(this.client.resume(threadId))).code : 0;
    await this.looked(threadId);
    return code;
  }

  /**
   * Sends one message and renders its turn to the end; 0 when it ended without an error. A turn that
   * leaves a draft plan asks for its decision, and that decision's turn follows.
   */
  async turn(content: string, extra: Pick<SendOptions, "parentMessageId"> = {}): Promise<ExitCode> {
    return this.settle(this.send(content, extra));
  }

  /** Sends a message on the thread (queued on the server when a turn runs there). */
  private send(content: string, extra: Pick<SendOptions, "parentMessageId"> = {}): Turn {
    return this.client.send({
      content,
      ...(this.threadId && { thread_id: this.threadId }),
      ...(this.options.provider && { provider: this.options.provider }),
      ...(this.options.model && { model: this.options.model }),
      onBusy: "queue",
      ...extra,
    });
  }

  /** Renders `turn` to its end, then the turns of the plan decisions it asks for; notes the thread as seen. */
  private async settle(turn: Turn): Promise<ExitCode> {
    let outcome = await this.follow(turn);
    while (outcome.draft !== undefined && outcome.code === 0 && this.threadId !== undefined) {
      const decision = await askPlanDecision(this.terminal);
      if (!decision) break;
      const data = { thread_id: this.threadId, plan_id: outcome.draft, ...decision };
      outcome = await this.follow(this.client.decidePlan(data));
    }
    if (this.threadId !== undefined) await this.looked(this.threadId);
    return outcome.code;
  }

  /** The oldest line typed while a turn ran that has not run yet (its queued turn, or a line to run now). */
  takePending(): Pending | undefined {
    const next = this.pending.shift();
    return next;
  }

  /** Follows the turn of a message that waited in the server's queue, under its `> text` line. */
  async runQueued(pending: Pending & { turn: Turn }): Promise<ExitCode> {
    this.terminal.write(`> ${terminalText(pending.content)}\n`);
    return this.settle(pending.turn);
  }

  /** `/retry`: answers the last user message again, as a new branch beside the answer it had. */
  async retry(): Promise<ExitCode> {
    const last = await this.lastUserMessage("retry");
    if (!last || this.threadId === undefined) return 1;
    return this.settle(this.client.regenerate(this.threadId, last.message.id));
  }

  /** `/edit TEXT`: sends TEXT in place of the last user message (a new branch from that message's parent). */
  async edit(content: string): Promise<ExitCode> {
    if (!content.trim()) {
      this.terminal.output.write("! /edit needs the new text: /edit TEXT\n");
      return 1;
    }
    const last = await this.lastUserMessage("edit");
    if (!last) return 1;
    return this.turn(content, { parentMessageId: last.message.parent_message_id ?? null });
  }

  /**
   * `/branches`: the alternatives at the last turn, the versions of the last user message (edits) and
   * of its answer (retries), oldest first, the one on the current branch marked with `*`.
   */
  async branches(): Promise<ExitCode> {
    const last = await this.lastUserMessage("show");
    const threadId = this.threadId;
    if (!last || threadId === undefined) return 1;
    const { rows, index, message } = last;
    const answer = rows[index + 1];
    try {
      const lines = [
        ...(await this.versionLines(threadId, "message", message, (branch, at) =>
          contentText((branch[at] as StoredMessage).content),
        )),
        ...(answer
          ? await this.versionLines(threadId, "answer", answer, answerText)
          : ["· answer: none yet"]),
      ];
      this.terminal.output.write(`${lines.join("\n")}\n`);
      return 0;
    } catch (error) {
      const e = error as ClientError;
      this.terminal.output.write(`! ${e.code}: ${terminalText(e.message)}\n`);
      return 1;
    }
  }

  /** One message's versions: a heading, then each version's text (read from its own branch). */
  private async versionLines(
    threadId: string,
    label: string,
    row: StoredMessage,
    text: (branch: StoredMessage[], at: number) => string,
  ): Promise<string[]> {
    const ids = row.sibling_ids && row.sibling_ids.length > 0 ? row.sibling_ids : [row.id];
    const lines = [`· ${label}: ${plural(ids.length, "version")}`];
    for (const [i, id] of ids.entries()) {
      const branch = await this.client.threads.messages(threadId, { leaf: id });
      const at = branch.findIndex((r) => r.id === id);
      const shown = at < 0 ? "" : terminalText(preview(text(branch, at).trim(), QUEUED_CHARS));
      lines.push(`  ${id === row.id ? "*" : " "} ${i + 1}. ${shown}`);
    }
    return lines;
  }

  /** The current branch and its last user message; says why not (no thread, no message, unreadable). */
  private async lastUserMessage(
    what: string,
  ): Promise<{ rows: StoredMessage[]; index: number; message: StoredMessage } | undefined> {
    const { output } = this.terminal;
    if (this.threadId === undefined) {
      output.write(`! nothing to ${what}: no thread yet\n`);
      return undefined;
    }
    let rows: StoredMessage[];
    try {
      rows = await this.client.threads.messages(this.threadId);
    } catch (error) {
      const e = error as ClientError;
      output.write(`! ${e.code}: ${terminalText(e.message)}\n`);
      return undefined;
    }
    const index = rows.findLastIndex((r) => r.role === "user");
    const message = rows[index];
    if (!message) {
      output.write(`! nothing to ${what}: the thread has no message yet\n`);
      return undefined;
    }
    return { rows, index, message };
  }

  /** `/continue` (or `--continue`): continues the thread's last turn, which stopped at a limit. */
  async continueTurn(): Promise<ExitCode> {
    if (this.threadId === undefined) {
      this.terminal.output.write("! nothing to continue: no thread yet\n");
      return 1;
    }
    const { code } = await this.follow(this.client.continueTurn(this.threadId));
    await this.looked(this.threadId);
    return code;
  }

  /**
   * Renders `turn` to its end, with Ctrl-C stopping it and questions asked at the prompt; the exit
   * code, and the draft plan it left waiting for review.
   */
  private follow(turn: Turn): Promise<{ code: ExitCode; draft?: string }> {
    const { output, lines, interrupts } = this.terminal;
    const state = initialTurnState(now());
    const showStatus = () =>
      output.start(() => [
        ...(this.client.connected
          ? statusLines(state, now(), this.terminal.columns())
          : reconnectingLine(now(), this.terminal.columns())),
        ...this.queuedLines(),
      ]);
    let presses = 0;
    let stopping = false;
    let prompting = false;
    let finished = false;
    let draft: string | undefined;

    return new Promise((resolve) => {
      const finish = (code: ExitCode) => {
        if (finished) return;
        finished = true;
        output.stop();
        if (prompting) lines.cancel();
        endInterrupts();
        untap();
        resolve({ code, ...(draft !== undefined && { draft }) });
      };
      const show = (text: string) => output.write(text);
      const failed = (error: ClientError) => {
        state.failed = true;
        show(`${state.atLineStart ? "" : "\n"}! ${error.code}: ${terminalText(error.message)}\n`);
        state.atLineStart = true;
      };
      const onInterrupt = () => {
        presses += 1;
        if (presses > 1 || turn.thread === undefined) return finish(1);
        stopping = true;
        // A question left unanswered goes away with the turn.
        if (prompting) lines.cancel();
        turn.stop().catch(failed);
      };
      // A turn that ends while its question waits (stopped elsewhere, the server gone) takes the prompt with it.
      void turn.done.then(() => {
        stopping = true;
        if (prompting) lines.cancel();
      });
      /**
       * Ctrl-D (or the end of piped input) at a question or approval ends the session, not the turn:
       * it waits on the server, to be answered later with `--thread`.
       */
      const leaveWaiting = (what: "answer" | "decision") => {
        const thread = this.threadId ?? turn.thread ?? "ID";
        show(`· the turn waits for your ${what}; to give it: agentwire chat --thread ${thread}\n`);
        state.atLineStart = true;
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
        if ("thread_id" in frame && frame.thread_id) this.threadId = frame.thread_id;
        if (frame.type === "plan_ready_for_review") draft = frame.plan.id;
        const text = renderFrame(frame, state, this.renderOptions(), now());
        if (text) show(text);
        else output.refresh();
        if (frame.type === "question") {
          // A resumed turn replays its questions from the start: only the open one is asked.
          const open = turn.tree?.questions.find((q) => q.toolCallId === frame.tool_call_id);
          if (open?.resolved) return;
          const answer = await prompt("> ");
          if (answer !== undefined) turn.answer(answer, frame.tool_call_id).catch(failed);
          else if (!finished && !stopping) leaveWaiting("answer");
        }
        if (frame.type === "tool_approval_request") {
          const args = terminalText(preview(frame.args, 120));
          const reply = await prompt(`? allow ${frame.tool_name} ${args}? [y]es / [t]hread / [n]o `);
          if (reply === undefined) {
            if (!finished && !stopping) leaveWaiting("decision");
            return;
          }
          const decision = reply?.startsWith("t")
            ? "allow_for_thread"
            : reply?.startsWith("y")
              ? "allow"
              : "deny";
          turn.approve(frame.approval_id, decision).catch(failed);
        }
      };
      const endInterrupts = interrupts.during(onInterrupt);
      // A line typed while the turn runs (not at one of its prompts) waits for it: queued on the server.
      const untap = this.queueTyped ? lines.tap((line) => this.typed(line, turn)) : () => {};
      showStatus();
      void (async () => {
        // One frame at a time: frames after a question wait until it is answered.
        for await (const frame of turn.frames) {
          if (finished) return;
          await handle(frame);
        }
        const end = await turn.done;
        // A refused message or a closed client ends the turn with no error frame of its own.
        if (end.error && !state.failed) failed(end.error);
        const why = END_LINES[end.status] ?? (CONTINUABLE.has(end.status) ? this.continueHint() : undefined);
        if (why) show(`${state.atLineStart ? "" : "\n"}${why}\n`);
        finish(exitCode(state, end.status, presses > 0));
      })();
    });
  }

  /**
   * Lines typed while a turn runs are queued (a terminal only: piped lines keep running one after
   * another, each when the one before ended).
   */
  private get queueTyped(): boolean {
    return !this.terminal.echoInput && this.options.question === undefined && !this.options.continue;
  }

  /** A line typed while `running` runs: queued on the server, or kept to run after it (see Pending). */
  private typed(line: string, running: Turn): void {
    const { output } = this.terminal;
    output.typed?.();
    const content = line.trim();
    if (!content) return;
    const threadId = this.threadId ?? running.thread;
    const keep = content.startsWith("/") || threadId === undefined || this.pending.some((p) => !p.turn);
    const pending: Pending = { content: line };
    if (!keep) {
      this.threadId = threadId;
      pending.turn = this.send(line);
      pending.turn.subscribe(() => output.refresh());
    }
    this.pending.push(pending);
    if (!this.terminal.live) output.write(`· queued (${this.pending.length}): ${terminalText(line)}\n`);
    else output.refresh();
  }

  /** The status area's lines for the lines typed ahead: `queued (1): text`, dim. */
  private queuedLines(): string[] {
    const columns = this.terminal.columns();
    return this.pending.map((p, i) => {
      const text = `queued (${i + 1}): ${terminalText(preview(p.content.trim(), QUEUED_CHARS))}`;
      const chars = [...text];
      const fitted = chars.length < columns ? text : `${chars.slice(0, Math.max(10, columns - 2)).join("")}…`;
      return `${DIM}${fitted}${UNDIM}`;
    });
  }

  /** How to go on after a limit: `/continue` at the prompt, or the one-shot command. */
  private continueHint(): string {
    if (this.options.question === undefined && !this.options.continue)
      return "· stopped at its limit: /continue goes on with a fresh budget";
    return `· stopped at its limit; to go on: agentwire chat --continue --thread ${this.threadId ?? "ID"}`;
  }

  private renderOptions() {
    return {
      verbose: this.options.verbose,
      live: this.terminal.live,
      ...(this.terminal.live && { columns: this.terminal.columns() }),
    };
  }
}

/**
 * Asks what to do with a draft plan: approve, revise with feedback, or leave it for later (Enter, or
 * the end of input). Ctrl-C at this prompt leaves it too.
 */
async function askPlanDecision(
  terminal: SessionTerminal,
): Promise<{ decision: "approve" } | { decision: "revise"; feedback?: string } | undefined> {
  const ask = async (text: string) => {
    terminal.write(text);
    const reply = await terminal.lines.next();
    terminal.write(
      reply !== undefined && terminal.echoInput ? `${reply}\n` : reply === undefined ? "\n" : "",
    );
    return reply?.trim();
  };
  const reply = (
    await ask("? [a]pprove the plan, [r]evise it, or Enter to leave it for later: ")
  )?.toLowerCase();
  if (reply?.startsWith("a")) return { decision: "approve" };
  if (!reply?.startsWith("r")) return undefined;
  const feedback = await ask("what should change? ");
  if (feedback === undefined) return undefined;
  return { decision: "revise", ...(feedback && { feedback }) };
}

/** 0 for an answer; 130 for a turn stopped with Ctrl-C, 1 for any other that did not get to its answer. */
function exitCode(state: TurnState, status: string, interrupted: boolean): ExitCode {
  if (state.failed || FAILED.has(status)) return 1;
  if (status === "stopped") return interrupted ? 130 : 1;
  return 0;
}

/** The answer of the turn whose first row is `branch[at]`: its last assistant text before the next user message. */
function answerText(branch: StoredMessage[], at: number): string {
  const next = branch.findIndex((r, i) => i > at && r.role === "user");
  const rows = branch.slice(at, next < 0 ? undefined : next);
  const last = rows.findLast((r) => r.role === "assistant" && contentText(r.content).trim());
  return last ? contentText(last.content) : "";
}

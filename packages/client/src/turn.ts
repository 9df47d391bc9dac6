import type {
  ClientFrame,
  EndedTurnStatus,
  QueuedMode,
  ServerFrame,
  SpendWarning,
  StoredMessage,
  TurnUsage,
} from "@agentwire-chat/protocol";
import { chatResumedStatusFromWire } from "@agentwire-chat/protocol/turn-status-on-wire";
import { ClientError } from "./client-error.js";
import { FrameLog } from "./frame-log.js";
import { contentText } from "./tree/content-text.js";
import { reduceFrame } from "./tree/reduce-frame.js";
import {
  type ApprovalDecision,
  emptyThread,
  lastTurn,
  type ThreadView,
  type TurnView,
} from "./tree/thread-view.js";

/**
 * How a turn ended: the status the server stored (`complete`, `stopped`, `error`, `interrupted` …),
 * `unknown` when the thread had no turn to resume, and `error` with `error` when the server refused
 * the message or the client closed first.
 */
export type TurnEnd = {
  status: EndedTurnStatus | "unknown";
  usage?: TurnUsage;
  /** A spend limit is 80 % used or more (the turn's `usage` said so): what to tell the user. */
  spendWarning?: SpendWarning;
  error?: ClientError;
  /** The message steered the running turn (another Turn follows that turn): this one ends when it joined. */
  steered?: true;
};

/** A message the server queued instead of starting a turn (`message_queued`). */
export type TurnQueued = { messageId: string; position: number; mode: QueuedMode };

/** What a turn needs from its client: to send commands, and to resume after a gap. */
export interface TurnHost {
  command(frame: ClientFrame): Promise<void>;
  heal(turn: Turn): void;
  forget(turn: Turn): void;
}

/** A promise with its settle functions, that never counts as an unhandled rejection. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * One turn as the app sees it: every frame once and in seq order however often the socket dropped,
 * the nested tree built from them, and how it ended. The client routes the thread's frames here.
 */
export class Turn {
  /** The thread, once the server named it (rejects when the message was refused before it had one). */
  readonly threadId: Promise<string>;
  /** How the turn ended; always resolves (errors are values on it). */
  readonly done: Promise<TurnEnd>;
  /** Errors met along the way that did not end the turn (a frame that could not be read, a seq gap). */
  readonly errors: ClientError[] = [];
  /** The highest seq applied (null before the first frame). */
  lastSeq: number | null = null;
  thread: string | undefined;
  /** Set while the message waits in the thread's queue; undefined once its turn started (and for a turn that started at once). */
  queued: TurnQueued | undefined;
  /** The user message whose turn this one waits for (queued, or regenerated), until that turn's first frame. */
  awaiting: { messageId: string; userFrame: boolean } | undefined;

  private readonly log = new FrameLog<ServerFrame>();
  private readonly thread$ = deferred<string>();
  private readonly done$ = deferred<TurnEnd>();
  private view: ThreadView = emptyThread();
  private final: StoredMessage | undefined;
  private usage: TurnUsage | undefined;
  private spendWarning: SpendWarning | undefined;
  private error: ClientError | undefined;
  private ended = false;
  private healedAt: number | null = null;
  private healing = false;
  private replayed = false;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly host: TurnHost,
    readonly nested: boolean,
    /** The chat_message's request_id: until a frame carries it, the thread's frames are another turn's. */
    readonly requestId?: string,
    threadId?: string,
    /** A `continue_turn`: it starts after the log's end as `chat_resumed` gives it, not at seq 1. */
    readonly continuing = false,
  ) {
    this.threadId = this.thread$.promise;
    this.done = this.done$.promise;
    if (threadId !== undefined) this.bind(threadId);
  }

  /** Every frame of the turn, each once, in seq order, across reconnects; ends with the turn. */
  get frames(): AsyncIterable<ServerFrame> {
    return this.log;
  }

  /** The frames applied so far, in seq order: what `frames` yields, read without waiting (for `subscribe` listeners). */
  get received(): readonly ServerFrame[] {
    return this.log.all;
  }

  /** The live nested view of the turn (undefined before its first frame). */
  get tree(): TurnView | undefined {
    return lastTurn(this.view);
  }

  /** False while a resumed turn replays what it missed (before the server's `chat_resumed`): a view can wait. */
  get caughtUp(): boolean {
    return this.requestId !== undefined || this.replayed;
  }

  /** True once the turn ended. */
  get isDone(): boolean {
    return this.ended;
  }

  /** The final depth-0 answer: the turn's final assistant message (its streamed root text without one). */
  async text(): Promise<string> {
    await this.done;
    if (this.final) return contentText(this.final.content);
    return (this.tree?.root ?? []).map((c) => (c.kind === "text" && !c.thinking ? c.text : "")).join("");
  }

  /** Calls `listener` after every change of the tree or the turn's end; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the turn; its end (`stopped`) arrives on `done`. */
  async stop(): Promise<void> {
    if (this.ended) return;
    await this.host.command({ command: "stop", data: { thread_id: await this.threadId } });
  }

  /** Answers the turn's open question (`ask_user`), or the one with `toolCallId`. */
  async answer(text: string, toolCallId?: string): Promise<void> {
    const id = toolCallId ?? this.tree?.questions.find((q) => !q.resolved)?.toolCallId;
    if (id === undefined) throw new ClientError("bad_request", "the turn asks no question");
    const thread_id = await this.threadId;
    await this.host.command({ command: "answer", data: { thread_id, tool_call_id: id, answer: text } });
  }

  /** Decides a gated tool call (`tool_approval_request`): allow, allow_for_thread or deny. */
  async approve(approvalId: string, decision: ApprovalDecision): Promise<void> {
    await this.host.command({
      command: "tool_approval_response",
      data: { approval_id: approvalId, decision },
    });
  }

  /** The thread is known (the `thread` frame, or the request found after a reconnect). */
  bind(threadId: string): void {
    this.thread = threadId;
    this.thread$.resolve(threadId);
  }

  /**
   * The turn waits for the turn that answers `messageId`: its user `message` frame (`userFrame`, a queued
   * message) or its `turn_started` (a regenerate). `queued` when the server queued it (`message_queued`).
   */
  wait(messageId: string, userFrame: boolean, queued?: TurnQueued): void {
    this.awaiting = { messageId, userFrame };
    if (queued) {
      this.queued = queued;
      this.changed();
    }
  }

  /** Applies one frame of the turn's thread: duplicates dropped, gaps healed by a resume, the end noticed. */
  receive(frame: ServerFrame): void {
    if (this.ended) return;
    const awaiting = this.awaiting;
    if (awaiting && this.lastSeq === null) {
      if (frame.type === "message" && frame.steered && frame.message.id === awaiting.messageId) {
        // It joined the running turn, which another Turn follows: this one is done.
        this.end({ status: "complete", steered: true });
        return;
      }
      const user = frame.type === "message" && frame.message.role === "user" && awaiting.userFrame;
      const starts =
        (frame.type === "turn_started" && frame.user_message_id === awaiting.messageId) ||
        (user && frame.message.id === awaiting.messageId);
      // Frames of the turns before it (the running one, a replay) are not this turn's.
      if (!starts) return;
      this.awaiting = undefined;
      this.queued = undefined;
    } else if (this.requestId !== undefined && this.lastSeq === null && frame.type !== "chat_resumed") {
      // Frames of the thread before ours (a replay of an earlier turn) are not this turn's.
      if (!("request_id" in frame) || frame.request_id !== this.requestId) return;
    }
    if (frame.type === "chat_resumed") {
      this.resumed(frame);
      return;
    }
    // Before its anchor a continuation's thread frames are the earlier part's (a replay after a drop).
    if (this.continuing && this.lastSeq === null) return;
    const seq = "seq" in frame ? frame.seq : undefined;
    if (seq === undefined) {
      if (frame.type === "error") this.end({ status: "error" }, new ClientError(frame.code, frame.message));
      return;
    }
    if (this.lastSeq !== null) {
      if (seq <= this.lastSeq) return;
      const first = (frame.type === "chunk" ? frame.seq_start : undefined) ?? seq;
      // Only a nested socket gets every seq; a flat one skips subtask text by design.
      if (this.nested && first > this.lastSeq + 1) {
        if (this.healedAt !== this.lastSeq) {
          if (!this.healing) {
            this.healing = true;
            this.host.heal(this);
          }
          return;
        }
        this.errors.push(new ClientError("seq_gap", `frames ${this.lastSeq + 1}..${first - 1} never came`));
      }
    }
    if (this.thread === undefined && "thread_id" in frame && frame.thread_id) this.bind(frame.thread_id);
    this.lastSeq = seq;
    this.log.push(frame);
    this.view = reduceFrame(this.view, frame);
    if (frame.type === "message" && frame.message.role === "assistant") this.final = frame.message;
    else if (frame.type === "usage") {
      const { type: _t, thread_id: _id, seq: _seq, spend_warning, ...usage } = frame;
      this.usage = usage;
      this.spendWarning = spend_warning;
    } else if (frame.type === "error") this.error = new ClientError(frame.code, frame.message);
    if (frame.type === "chunk" && frame.done === true && frame.depth === 0) {
      const status = this.final?.status;
      this.end({
        status: status === undefined || status === "waiting_user" ? "complete" : status,
      });
      return;
    }
    this.changed();
  }

  /** A frame of a type this SDK does not know took `seq`: it is no gap. */
  skip(seq: number): void {
    if (!this.ended && this.lastSeq !== null && seq === this.lastSeq + 1) this.lastSeq = seq;
  }

  /** Ends the turn without its frames: refused, closed, or nothing left to resume. */
  end(result: TurnEnd, error?: ClientError): void {
    if (this.ended) return;
    this.ended = true;
    const err = error ?? this.error;
    const usage = result.usage ?? this.usage;
    const warning = this.spendWarning;
    this.done$.resolve({
      ...result,
      ...(usage && { usage }),
      ...(warning && { spendWarning: warning }),
      ...(err && { error: err }),
    });
    this.thread$.reject(err ?? new ClientError("closed", "the turn ended before it had a thread"));
    this.log.end();
    this.host.forget(this);
    this.changed();
  }

  private resumed(frame: ServerFrame & { type: "chat_resumed" }): void {
    this.healing = false;
    this.replayed = true;
    this.healedAt = this.lastSeq;
    if (this.continuing && this.lastSeq === null) {
      // The earlier part ends at the log's end: the continuation's frames follow it.
      this.lastSeq = frame.last_seq;
      this.healedAt = this.lastSeq;
      return;
    }
    this.view = reduceFrame(this.view, frame);
    // Resumed from its start after a lookup, whatever the status: the log's turn is not this one.
    const lost = this.requestId !== undefined && this.lastSeq === null;
    const status = chatResumedStatusFromWire(frame.status);
    if (status === undefined || lost) this.end({ status: "unknown" });
    else if (status !== "running" && status !== "waiting_user") {
      // The replay holds the end; a server that lost it still ends the turn with what it said.
      const stored = this.final?.status;
      const ended = stored && stored !== "waiting_user";
      this.end({ status: ended ? stored : status });
    } else this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // An app's listener must not break the stream for the others.
      }
    }
  }
}

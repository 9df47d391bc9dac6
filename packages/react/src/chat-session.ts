import {
  type ApprovalDecision,
  type Client,
  ClientError,
  type SendOptions,
  type Turn,
  type TurnView,
} from "@agentwire-chat/client";
import type { MessageContent, StoredMessage, TurnStatus } from "@agentwire-chat/protocol";
import { joinRows } from "./join-rows.js";

/**
 * Where the chat stands: `loading` its stored rows, `idle` with no turn yet, or the current turn's
 * TurnStatus: `running`, `waiting_user` (a question or an approval waits), or how it ended.
 */
export type ChatStatus = "loading" | "idle" | TurnStatus;

/** One snapshot of a chat; a new object after every change, so React can compare by identity. */
export type ChatState = {
  /** The thread, once known (given, or named by the server for a first message). */
  threadId: string | undefined;
  /** Every stored row of the thread, the current turn's included as they arrive, each once. */
  messages: StoredMessage[];
  /** The nested view of the current (or last) turn: its text, tool cards, subtasks, questions, approvals. */
  liveTree: TurnView | undefined;
  status: ChatStatus;
  /** The last thing that went wrong: rows that could not load, a refused message or command. */
  error: ClientError | undefined;
};

/** What `send` takes besides the content. */
export type ChatSendOptions = Omit<SendOptions, "content" | "thread_id">;

/**
 * One chat on one thread over a client: the state `useChat` renders, without React. It follows one
 * turn at a time; detaching (unmount) leaves the turn running on the server and in the client, so
 * the next session on the thread picks it up where it is.
 */
export class ChatSession {
  private state: ChatState;
  private readonly listeners = new Set<() => void>();
  private fetched: StoredMessage[] = [];
  private turn: Turn | undefined;
  private turnRows: StoredMessage[] = [];
  private read = 0;
  private unfollow: (() => void) | undefined;
  private attached = false;
  /** Bumped by every attach and detach, so a late answer of an earlier one changes nothing. */
  private epoch = 0;

  constructor(
    readonly client: Client,
    threadId?: string,
  ) {
    this.state = {
      threadId,
      messages: [],
      liveTree: undefined,
      status: threadId === undefined ? "idle" : "loading",
      error: undefined,
    };
  }

  /** The current snapshot. */
  readonly getState = (): ChatState => this.state;

  /** Calls `listener` after every change; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Starts showing the thread: its rows, then its running or last turn (resumed). Idempotent. */
  attach(): void {
    if (this.attached) return;
    this.attached = true;
    const epoch = ++this.epoch;
    if (this.turn) {
      this.follow(this.turn);
      return;
    }
    const threadId = this.state.threadId;
    if (threadId !== undefined) void this.load(threadId, epoch);
  }

  /** Stops listening (unmount); the turn goes on. */
  detach(): void {
    this.attached = false;
    this.epoch++;
    this.unfollow?.();
    this.unfollow = undefined;
  }

  /** Sends a message on the thread (a new thread when there is none yet); refused while a turn runs. */
  send(content: MessageContent, options: ChatSendOptions = {}): Turn | undefined {
    if (this.turn && !this.turn.isDone) {
      this.set({
        error: new ClientError("busy", "a turn is running on this thread: stop or answer it first"),
      });
      return undefined;
    }
    const threadId = this.state.threadId;
    const turn = this.client.send({
      ...options,
      content,
      ...(threadId !== undefined && { thread_id: threadId }),
    });
    this.fetched = this.state.messages;
    this.start(turn);
    turn.threadId.then(
      (id) => {
        if (this.turn === turn && this.state.threadId !== id) this.set({ threadId: id });
      },
      () => {},
    );
    return turn;
  }

  /** Stops the current turn. */
  stop(): Promise<void> {
    return this.command((turn) => turn.stop());
  }

  /** Answers the current turn's open question (or the one with `toolCallId`). */
  answer(text: string, toolCallId?: string): Promise<void> {
    return this.command((turn) => turn.answer(text, toolCallId));
  }

  /** Decides an approval the current turn waits on. */
  approve(approvalId: string, decision: ApprovalDecision): Promise<void> {
    return this.command((turn) => turn.approve(approvalId, decision));
  }

  private async load(threadId: string, epoch: number): Promise<void> {
    try {
      const rows = await this.client.threads.messages(threadId);
      if (epoch !== this.epoch) return;
      this.fetched = rows;
      this.set({ messages: rows });
    } catch (error) {
      if (epoch !== this.epoch) return;
      this.set({ status: "idle", error: asClientError(error) });
      return;
    }
    // After the rows: a replayed row the fetch already had is then found by id, not shown twice.
    this.start(this.client.resume(threadId));
  }

  private start(turn: Turn): void {
    this.turn = turn;
    this.turnRows = [];
    this.read = 0;
    this.set({ liveTree: undefined, status: turn.caughtUp ? "running" : "loading", error: undefined });
    if (this.attached) this.follow(turn);
  }

  private follow(turn: Turn): void {
    this.unfollow?.();
    const unsubscribe = turn.subscribe(() => this.update(turn));
    this.unfollow = unsubscribe;
    this.update(turn);
    const epoch = this.epoch;
    void turn.done.then((end) => {
      if (epoch !== this.epoch || this.turn !== turn) return;
      this.update(turn);
      if (end.status === "unknown") this.set({ status: "idle", liveTree: undefined });
      else this.set({ status: end.status, ...(end.error && { error: end.error }) });
    });
  }

  /** Takes in what the turn applied since the last look: its new rows and its tree. */
  private update(turn: Turn): void {
    if (this.turn !== turn) return;
    const frames = turn.received;
    let grew = false;
    for (; this.read < frames.length; this.read++) {
      const frame = frames[this.read];
      if (frame?.type !== "message") continue;
      const at = this.turnRows.findIndex((row) => row.id === frame.message.id);
      if (at >= 0) this.turnRows[at] = frame.message;
      else this.turnRows.push(frame.message);
      grew = true;
    }
    const tree = turn.tree;
    const patch: Partial<ChatState> = { liveTree: tree };
    if (grew) patch.messages = joinRows(this.fetched, this.turnRows);
    // A resumed turn still replaying is `loading`: a finished one must not flash `running` on open.
    if (!turn.isDone) patch.status = !turn.caughtUp ? "loading" : waits(tree) ? "waiting_user" : "running";
    this.set(patch);
  }

  private async command(run: (turn: Turn) => Promise<void>): Promise<void> {
    const turn = this.turn;
    if (!turn || turn.isDone) {
      this.set({ error: new ClientError("bad_request", "no turn is running") });
      return;
    }
    try {
      await run(turn);
    } catch (error) {
      this.set({ error: asClientError(error) });
    }
  }

  private set(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}

function waits(tree: TurnView | undefined): boolean {
  return !!tree && (tree.questions.some((q) => !q.resolved) || tree.approvals.some((a) => !a.resolved));
}

function asClientError(error: unknown): ClientError {
  if (error instanceof ClientError) return error;
  return new ClientError("internal", error instanceof Error ? error.message : String(error));
}

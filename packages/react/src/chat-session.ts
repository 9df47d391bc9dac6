import {
  type ApprovalDecision,
  type Client,
  ClientError,
  contentText,
  type QueuedMessageView,
  queuedFrom,
  type SendOptions,
  type Turn,
  type TurnView,
} from "@agentwire-chat/client";
import type { MessageContent, ServerFrame, StoredMessage, TurnStatus } from "@agentwire-chat/protocol";
import { type Branches, branchesOf, rowsThrough } from "./branches.js";
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
  /** Messages waiting for the running turn to end (or to steer it), next first. */
  queued: QueuedMessageView[];
  /** Per shown message with alternatives (edits, regenerates): its siblings and which one is shown. */
  branches: Branches;
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
  private unwatch: (() => void) | undefined;
  /** Our messages the server queued, by Turn: they become the current turn when they start. */
  private readonly waiting = new Set<Turn>();
  /** Where the current turn's rows begin: the rows through this message stay (null: none; undefined: all). */
  private cut: string | null | undefined;
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
      queued: [],
      branches: {},
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
    this.unwatch = this.client.onFrame((frame) => this.watch(frame));
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
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /**
   * Sends a message on the thread (a new thread when there is none yet). While a turn runs it waits in
   * the thread's queue (`onBusy`, default queue) and becomes the current turn when it starts.
   */
  send(content: MessageContent, options: ChatSendOptions = {}): Turn | undefined {
    const threadId = this.state.threadId;
    const turn = this.client.send({
      ...options,
      content,
      ...(threadId !== undefined && { thread_id: threadId }),
    });
    const cut = options.parentMessageId;
    if (this.turn && !this.turn.isDone) {
      this.queue(turn, contentText(content), cut);
      return turn;
    }
    this.begin(turn, cut);
    turn.threadId.then(
      (id) => {
        if (this.turn === turn && this.state.threadId !== id) this.set({ threadId: id });
      },
      () => {},
    );
    return turn;
  }

  /** Answers a user message again (default: the last one), as a new branch; refused while a turn runs. */
  regenerate(messageId?: string): Turn | undefined {
    const threadId = this.state.threadId;
    const id = messageId ?? this.state.messages.findLast((m) => m.role === "user")?.id;
    if (threadId === undefined || id === undefined)
      return this.refuse(new ClientError("bad_request", "no user message to answer again"));
    if (this.turn && !this.turn.isDone) return this.refuse(busy());
    const turn = this.client.regenerate(threadId, id);
    this.begin(turn, id);
    return turn;
  }

  /** Sends `content` in place of the message `messageId` (after its parent), as a new branch. */
  edit(messageId: string, content: MessageContent): Turn | undefined {
    const row = this.state.messages.find((m) => m.id === messageId);
    if (!row) return this.refuse(new ClientError("not_found", `no message ${messageId} is shown`));
    return this.send(content, { parentMessageId: row.parent_message_id ?? null });
  }

  /** Shows the branch through `messageId` (a sibling of a shown message), then loads its rows. */
  async selectBranch(messageId: string): Promise<void> {
    const threadId = this.state.threadId;
    if (threadId === undefined) return;
    const epoch = this.epoch;
    try {
      await this.client.setCurrentLeaf(threadId, messageId);
      const rows = await this.client.threads.messages(threadId);
      if (epoch !== this.epoch) return;
      this.fetched = rows;
      this.turnRows = [];
      this.set({ messages: rows, liveTree: undefined, error: undefined });
    } catch (error) {
      this.set({ error: asClientError(error) });
    }
  }

  /** Takes a queued message back before it starts. */
  async cancelQueued(messageId: string): Promise<void> {
    const threadId = this.state.threadId;
    if (threadId === undefined) return;
    try {
      await this.client.cancelQueued(threadId, messageId);
      this.unqueue(messageId);
    } catch (error) {
      this.set({ error: asClientError(error) });
    }
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
      // An older server has no queue endpoint: then nothing waits.
      const [rows, queued] = await Promise.all([
        this.client.threads.messages(threadId),
        this.client.threads.queue(threadId).catch(() => []),
      ]);
      if (epoch !== this.epoch) return;
      this.fetched = rows;
      this.set({ messages: rows, queued: queuedFrom(queued) });
    } catch (error) {
      if (epoch !== this.epoch) return;
      this.set({ status: "idle", error: asClientError(error) });
      return;
    }
    // After the rows: a replayed row the fetch already had is then found by id, not shown twice.
    this.start(this.client.resume(threadId));
  }

  /** A new current turn; its rows follow the shown ones through `cut` (see `cut`). */
  private begin(turn: Turn, cut: string | null | undefined): void {
    this.cut = cut;
    this.fetched = rowsThrough(this.state.messages, cut);
    this.start(turn);
  }

  /** Our message waits in the queue: shown there, and the current turn once it starts. */
  private queue(turn: Turn, content: string, cut: string | null | undefined): void {
    let messageId: string | undefined;
    this.waiting.add(turn);
    const unsubscribe = turn.subscribe(() => {
      if (!turn.isDone && turn.lastSeq === null) {
        const queued = turn.queued;
        if (queued && messageId === undefined) {
          messageId = queued.messageId;
          const list = this.state.queued.filter((q) => q.messageId !== queued.messageId);
          list.splice(queued.position - 1, 0, { ...queued, content });
          this.set({ queued: list.map((q, i) => ({ ...q, position: i + 1 })) });
        }
        return;
      }
      // It left the queue: its turn started, it steered the running one, it was cancelled or refused.
      unsubscribe();
      this.waiting.delete(turn);
      if (messageId !== undefined) this.unqueue(messageId);
      if (!turn.isDone) this.begin(turn, cut);
      else void turn.done.then((end) => end.error && this.set({ error: end.error }));
    });
  }

  /** Whether a queued message still has its own Turn waiting here. */
  private live(messageId: string): boolean {
    for (const turn of this.waiting) if (turn.queued?.messageId === messageId) return true;
    return false;
  }

  private unqueue(messageId: string): void {
    if (!this.state.queued.some((q) => q.messageId === messageId)) return;
    const queued = this.state.queued.filter((q) => q.messageId !== messageId);
    this.set({ queued: queued.map((q, i) => ({ ...q, position: i + 1 })) });
  }

  /**
   * Frames of the thread no Turn of ours follows: a message queued before a reload (or in another tab)
   * starting (then follow its turn) or steering, or leaving the queue.
   */
  private watch(frame: ServerFrame): void {
    const threadId = this.state.threadId;
    if (threadId === undefined || !("thread_id" in frame) || frame.thread_id !== threadId) return;
    const id =
      frame.type === "turn_started"
        ? frame.user_message_id
        : frame.type === "queued_message_cancelled" || (frame.type === "message" && frame.steered)
          ? frame.type === "message"
            ? frame.message.id
            : frame.message_id
          : undefined;
    if (id === undefined || this.live(id) || !this.state.queued.some((q) => q.messageId === id)) return;
    this.unqueue(id);
    if (frame.type === "turn_started" && (!this.turn || this.turn.isDone))
      this.begin(this.client.resume(threadId), undefined);
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
      // A new branch: the rows from HTTP say which messages now have siblings (frames do not).
      if (this.cut !== undefined && end.status !== "error") void this.reload(turn, epoch);
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

  /** Loads the current branch's rows again after `turn` (unless another turn began meanwhile). */
  private async reload(turn: Turn, epoch: number): Promise<void> {
    const threadId = this.state.threadId;
    if (threadId === undefined) return;
    try {
      const rows = await this.client.threads.messages(threadId);
      if (epoch !== this.epoch || this.turn !== turn) return;
      this.fetched = rows;
      this.turnRows = [];
      this.set({ messages: rows });
    } catch {
      // The rows stay as streamed; only the branch arrows wait for the next load.
    }
  }

  private refuse(error: ClientError): undefined {
    this.set({ error });
    return undefined;
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
    if (patch.messages) patch.branches = branchesOf(patch.messages);
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}

function waits(tree: TurnView | undefined): boolean {
  return !!tree && (tree.questions.some((q) => !q.resolved) || tree.approvals.some((a) => !a.resolved));
}

function busy(): ClientError {
  return new ClientError("busy", "a turn is running on this thread: stop or answer it first");
}

function asClientError(error: unknown): ClientError {
  if (error instanceof ClientError) return error;
  return new ClientError("internal", error instanceof Error ? error.message : String(error));
}

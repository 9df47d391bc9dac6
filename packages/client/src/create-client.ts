import type {
  ChatContext,
  ClientFrame,
  MessageContent,
  OnBusy,
  QueuedMessage,
  ServerFrame,
  StoredMessage,
  ThreadSummary,
} from "@agentwire-chat/protocol";
import {
  BEARER_PROTOCOL_PREFIX,
  PROTOCOL_V1,
  PROTOCOL_V1_NESTED,
} from "@agentwire-chat/protocol/subprotocols";
import { threadListingFromWire, threadLiveStateFromWire } from "@agentwire-chat/protocol/turn-status-on-wire";
import type { ReconnectOptions } from "./backoff.js";
import { ClientError } from "./client-error.js";
import {
  Connection,
  type ConnectionState,
  type HeartbeatOptions,
  type WebSocketClass,
} from "./connection.js";
import { httpJson } from "./http-json.js";
import { httpBase, socketUrl } from "./socket-url.js";
import type { ThreadState, Threads } from "./threads.js";
import { Turn, type TurnHost, type TurnQueued } from "./turn.js";

export type ClientOptions = {
  /** The socket URL, `ws(s)://host/ws`, or the server's `http(s)://host` base. */
  url: string;
  /** An API token (sent as the `agentwire.bearer.<token>` subprotocol and as HTTP Bearer). */
  token?: string;
  /** Offer `agentwire.v1+nested`: subtask text arrives too (default true). */
  nested?: boolean;
  /** The WebSocket class, where there is no global one (Node 20: `ws`). */
  WebSocket?: WebSocketClass;
  /** Reconnect policy; `false` never reconnects. */
  reconnect?: ReconnectOptions | false;
  heartbeat?: HeartbeatOptions;
  /** Longest frame read, in characters (default 16 Mi); a longer one is an error, not a crash. */
  maxFrameChars?: number;
  /** Errors no call or turn owns: an unreadable frame, a connection given up on. */
  onError?: (error: ClientError) => void;
};

/** What `client.send` takes: `chat_message`'s data. */
export type SendOptions = {
  content: MessageContent;
  thread_id?: string;
  provider?: string;
  model?: string;
  chat_context?: ChatContext;
  /** The message this one follows (a turn's final assistant row, `TurnView.answerMessageId`); null: a new first message. Absent: the current leaf. */
  parentMessageId?: string | null;
  /** What the server does when a turn already runs on the thread (default `queue`). */
  onBusy?: OnBusy;
};

/** What `client.decidePlan` takes: `plan_decision`'s data. */
export type PlanDecisionOptions = {
  thread_id: string;
  plan_id: string;
  decision: "approve" | "revise";
  feedback?: string;
};

export interface Client {
  /** Starts a turn. */
  send(message: SendOptions): Turn;
  /** Answers a draft plan (`plan_ready_for_review`): approve runs it, revise gives the model `feedback`; a new turn either way. */
  decidePlan(decision: PlanDecisionOptions): Turn;
  /** Answers a user message (`messageId`, any branch) again, as a new branch beside the old answer; the Turn follows it. */
  regenerate(threadId: string, messageId: string): Turn;
  /** Removes a queued message that has not started; rejects with the server's code (`not_found`: started or unknown). */
  cancelQueued(threadId: string, messageId: string): Promise<void>;
  /** Shows another branch: the newest leaf under `messageId` becomes current; resolves with its id (rejects `busy`, `not_found`). */
  setCurrentLeaf(threadId: string, messageId: string): Promise<string>;
  /** Follows the running (or last) turn of a thread from its start. */
  resume(threadId: string): Turn;
  /**
   * Continues the thread's last turn, which a budget or the iteration limit ended (`continue_turn`):
   * the returned Turn holds the continuation's frames only, from its `agent_state resumed` to its new end.
   */
  continueTurn(threadId: string): Turn;
  readonly threads: Threads;
  /**
   * Sends any command (stop, answer, tool_result, client_tools_manifest …); settles when the server
   * took it, rejects with its error. Queued while offline; rejects with `closed` when the socket
   * dropped after it went out (it may or may not have run).
   */
  command(frame: ClientFrame): Promise<void>;
  /** Calls `listener` with every frame the socket brings, after the client routed it (for what no Turn covers: scratchpad, plans, client tool calls); returns the unsubscribe. */
  onFrame(listener: (frame: ServerFrame) => void): () => void;
  /** True while the socket is open. */
  readonly connected: boolean;
  /** Where the socket stands: connecting, open, offline until `retryAt`, or closed. */
  readonly connection: ConnectionState;
  /** Calls `listener` with every change of `connection`; returns the unsubscribe. */
  onConnection(listener: (state: ConnectionState) => void): () => void;
  /** Reconnects now instead of waiting out the backoff (a "retry now" button); no-op unless offline. */
  retryNow(): void;
  /** Drops the socket as a network failure would; the client reconnects (tests, "retry now"). */
  drop(): void;
  /** Closes for good: live turns end with `error {code:"closed"}`. */
  close(): void;
}

/** The user message whose turn a frame starts (its user `message`, `turn_started`) or that steered the running one. */
function startsFor(frame: ServerFrame): string | undefined {
  if (frame.type === "turn_started") return frame.user_message_id;
  return frame.type === "message" && frame.message.role === "user" ? frame.message.id : undefined;
}

function threadPath(threadId: string): string {
  return `/api/threads/${encodeURIComponent(threadId)}`;
}

/** A command waiting for its answer; `sent` once it went out on a socket (a drop then leaves it unknown). */
type Ack = { resolve(): void; reject(error: ClientError): void; sent: boolean };

/** Creates a client; it connects at once and stays connected until `close()`. */
export function createClient(options: ClientOptions): Client {
  return new AgentwireClient(options);
}

class AgentwireClient implements Client, TurnHost {
  private readonly conn: Connection;
  private readonly base: string;
  private readonly nested: boolean;
  private nextId = 0;
  /**
   * Request ids are unique per client, not just per socket: after a drop, `GET /api/threads?request_id=`
   * looks a message up among all of the user's, and another tab's `c1` must not answer for ours.
   */
  private readonly idPrefix = Math.random().toString(36).slice(2, 10);
  /** Live turns by thread, and send()s whose thread is not known yet by request_id. */
  private readonly byThread = new Map<string, Turn>();
  private readonly byRequest = new Map<string, Turn>();
  /** Turns waiting for the turn that answers a message (queued, regenerated), by that message id. */
  private readonly waiting = new Map<string, Turn>();
  /** chat_messages sent on the current socket (a drop before their `thread` needs a lookup). */
  private readonly sentMessages = new Map<string, ClientFrame>();
  private readonly acks = new Map<string, Ack>();
  /** Commands waiting for an open socket. */
  private outbox: ClientFrame[] = [];
  private readonly stateListeners = new Set<(state: ThreadState) => void>();
  private readonly frameListeners = new Set<(frame: ServerFrame) => void>();
  private readonly connectionListeners = new Set<(state: ConnectionState) => void>();
  private closed = false;
  readonly threads: Threads;

  constructor(private readonly o: ClientOptions) {
    this.nested = o.nested ?? true;
    this.base = httpBase(o.url);
    const protocols = this.nested ? [PROTOCOL_V1_NESTED, PROTOCOL_V1] : [PROTOCOL_V1];
    if (o.token) protocols.push(`${BEARER_PROTOCOL_PREFIX}${o.token}`);
    const WS = o.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
    if (!WS) throw new ClientError("closed", "no WebSocket here: pass one, e.g. createClient({ WebSocket })");
    this.conn = new Connection({
      url: socketUrl(o.url),
      protocols,
      WebSocket: WS,
      reconnect: o.reconnect ?? {},
      heartbeat: o.heartbeat ?? {},
      maxFrameChars: o.maxFrameChars ?? 16 * 1024 * 1024,
      onOpen: () => this.opened(),
      onFrame: (frame) => {
        this.route(frame);
        for (const listener of this.frameListeners) this.safely(() => listener(frame));
      },
      onUnknown: (threadId, seq) => this.byThread.get(threadId)?.skip(seq),
      onProblem: (error) => this.problem(error),
      onDown: (final) => this.down(final),
      onState: (state) => {
        for (const listener of this.connectionListeners) this.safely(() => listener(state));
      },
    });
    this.threads = {
      list: async () =>
        (await this.get<{ threads: ThreadSummary[] }>("/api/threads")).threads.map(threadListingFromWire),
      messages: async (id, options) =>
        (
          await this.get<{ messages: StoredMessage[] }>(
            `${threadPath(id)}/messages${options?.leaf ? `?leaf=${encodeURIComponent(options.leaf)}` : ""}`,
          )
        ).messages,
      queue: async (id) => (await this.get<{ queued: QueuedMessage[] }>(`${threadPath(id)}/queue`)).queued,
      subscribe: (listener) => {
        this.stateListeners.add(listener);
        if (this.stateListeners.size === 1) this.conn.send({ command: "subscribe_threads", data: {} });
        return () => this.stateListeners.delete(listener);
      },
    };
    this.conn.open();
  }

  get connected(): boolean {
    return this.conn.isOpen;
  }

  get connection(): ConnectionState {
    return this.conn.state;
  }

  onConnection(listener: (state: ConnectionState) => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  onFrame(listener: (frame: ServerFrame) => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  retryNow(): void {
    this.conn.retryNow();
  }

  send(message: SendOptions): Turn {
    const { parentMessageId, onBusy, ...data } = message;
    // Queue by default: a message sent while a turn runs waits for it instead of failing `busy`.
    const wire = {
      ...data,
      on_busy: onBusy ?? "queue",
      ...(parentMessageId !== undefined && { parent_message_id: parentMessageId }),
    };
    return this.start("chat_message", wire, message.thread_id);
  }

  regenerate(threadId: string, messageId: string): Turn {
    const turn = this.start("regenerate", { thread_id: threadId, message_id: messageId }, threadId);
    // No frame of the new turn carries the request: its `turn_started` names the message it answers.
    if (!turn.isDone) this.await(turn, messageId, false);
    return turn;
  }

  async cancelQueued(threadId: string, messageId: string): Promise<void> {
    await this.command({ command: "cancel_queued", data: { thread_id: threadId, message_id: messageId } });
  }

  async setCurrentLeaf(threadId: string, messageId: string): Promise<string> {
    const path = `${threadPath(threadId)}/current_leaf`;
    const body = { message_id: messageId };
    return (await httpJson<{ current_leaf_id: string }>(this.base, path, this.o.token, "PUT", body))
      .current_leaf_id;
  }

  decidePlan(decision: PlanDecisionOptions): Turn {
    return this.start("plan_decision", decision, decision.thread_id);
  }

  resume(threadId: string): Turn {
    const live = this.byThread.get(threadId);
    if (live && !live.isDone) return live;
    const turn = new Turn(this, this.nested, undefined, threadId);
    if (this.closed) {
      turn.end({ status: "error" }, new ClientError("closed", "the client is closed"));
      return turn;
    }
    this.byThread.set(threadId, turn);
    this.resumeTurn(turn);
    return turn;
  }

  continueTurn(threadId: string): Turn {
    const turn = new Turn(this, this.nested, undefined, threadId, true);
    const live = this.byThread.get(threadId);
    if (this.closed || (live && !live.isDone)) {
      const why = this.closed ? "the client is closed" : "a turn runs on the thread";
      turn.end({ status: "error" }, new ClientError(this.closed ? "closed" : "busy", why));
      return turn;
    }
    this.byThread.set(threadId, turn);
    // Where the thread's log ends now first (the socket's answers keep order): the continuation follows it.
    this.resumeTurn(turn);
    this.command({ command: "continue_turn", data: { thread_id: threadId } }).catch((error: ClientError) =>
      turn.end({ status: "error" }, error),
    );
    return turn;
  }

  drop(): void {
    this.conn.drop();
  }

  close(): void {
    this.closed = true;
    this.conn.close();
  }

  /** Sends a command that starts a turn (`chat_message`, `plan_decision`, `regenerate`) and returns that turn. */
  private start(
    command: "chat_message" | "plan_decision" | "regenerate",
    data: object,
    threadId?: string,
  ): Turn {
    const requestId = this.id();
    const turn = new Turn(this, this.nested, requestId, threadId);
    if (this.closed) {
      turn.end({ status: "error" }, new ClientError("closed", "the client is closed"));
      return turn;
    }
    // Registered by thread only with its first frame: until then the thread's frames are another turn's.
    this.byRequest.set(requestId, turn);
    this.transmit({ command, request_id: requestId, data } as ClientFrame);
    return turn;
  }

  /** Sends a command and settles when the server took it (its error, or the pong after it). */
  command(frame: ClientFrame): Promise<void> {
    if (this.closed) return Promise.reject(new ClientError("closed", "the client is closed"));
    const request_id = this.id();
    return new Promise<void>((resolve, reject) => {
      this.acks.set(request_id, { resolve, reject, sent: false });
      // The server answers a socket's frames in order: a pong after the command means it was accepted.
      this.transmit({ ...frame, request_id } as ClientFrame);
      this.transmit({ command: "ping", request_id, data: {} });
    });
  }

  /** TurnHost: asks again for the frames after the turn's last one (a gap in a nested turn). */
  heal(turn: Turn): void {
    this.resumeTurn(turn);
  }

  forget(turn: Turn): void {
    if (turn.thread !== undefined && this.byThread.get(turn.thread) === turn)
      this.byThread.delete(turn.thread);
    if (turn.requestId !== undefined) {
      this.byRequest.delete(turn.requestId);
      this.sentMessages.delete(turn.requestId);
    }
    const waits = turn.awaiting?.messageId;
    if (waits !== undefined && this.waiting.get(waits) === turn) this.waiting.delete(waits);
  }

  /** The turn follows the one that answers `messageId` when that starts (see Turn.wait). */
  private await(turn: Turn, messageId: string, userFrame: boolean, queued?: TurnQueued): void {
    turn.wait(messageId, userFrame, queued);
    // The server sends the queued message's turn to the socket that queued it: no resume needed.
    this.waiting.set(messageId, turn);
  }

  /**
   * Asks for the turn's frames after its last seq. Only on an open socket (the next open resumes every
   * live turn); a refusal (`not_found`: no such thread, or not ours) ends the turn with it.
   */
  private resumeTurn(turn: Turn): void {
    if (turn.thread === undefined || !this.conn.isOpen) return;
    // A continuation not yet anchored asks for no frames, only where the log ends (chat_resumed's last_seq).
    const from = turn.lastSeq ?? (turn.continuing ? Number.MAX_SAFE_INTEGER : 0);
    const data = { thread_id: turn.thread, last_seq: from };
    this.command({ command: "resume_chat", data }).catch((error: ClientError) => {
      if (error.code !== "closed") turn.end({ status: "error" }, error);
    });
  }

  private id(): string {
    return `${this.idPrefix}-${++this.nextId}`;
  }

  private transmit(frame: ClientFrame): void {
    if (this.conn.send(frame)) {
      const ack = frame.request_id === undefined ? undefined : this.acks.get(frame.request_id);
      if (ack) ack.sent = true;
      if ((frame.command === "chat_message" || frame.command === "plan_decision") && frame.request_id)
        this.sentMessages.set(frame.request_id, frame);
    } else this.outbox.push(frame);
  }

  private get<T>(path: string): Promise<T> {
    return httpJson<T>(this.base, path, this.o.token);
  }

  /** A (new) socket: re-subscribe, resume every live turn from its last seq, then send what waited. */
  private opened(): void {
    if (this.stateListeners.size > 0) this.conn.send({ command: "subscribe_threads", data: {} });
    for (const turn of new Set(this.byThread.values()))
      if (turn.lastSeq !== null || !turn.requestId) this.resumeTurn(turn);
    // A waiting turn on a thread no live turn watches: a resume watches it again (and replays it, had it started).
    for (const turn of this.waiting.values())
      if (turn.thread !== undefined && !this.byThread.has(turn.thread)) this.resumeTurn(turn);
    for (const [requestId, frame] of this.sentMessages) void this.recover(requestId, frame);
    const waiting = this.outbox;
    this.outbox = [];
    for (const frame of waiting) this.transmit(frame);
  }

  /**
   * A chat_message went out on a socket that dropped before its turn's first frame: the server says
   * whether it started a turn (then resume it from its start) or not (then send it again).
   */
  private async recover(requestId: string, frame: ClientFrame): Promise<void> {
    this.sentMessages.delete(requestId);
    const turn = this.byRequest.get(requestId);
    if (!turn || turn.lastSeq !== null) return;
    try {
      const { threads } = await this.get<{ threads: ThreadSummary[] }>(
        `/api/threads?request_id=${encodeURIComponent(requestId)}`,
      );
      const started = threads[0];
      if (turn.isDone || turn.lastSeq !== null) return;
      if (!started) return this.transmit(frame);
      turn.bind(started.id);
      this.byThread.set(started.id, turn);
      this.resumeTurn(turn);
    } catch {
      // The lookup failed (the server went again): the next open tries once more.
      if (!turn.isDone) this.sentMessages.set(requestId, frame);
    }
  }

  private route(frame: ServerFrame): void {
    const requestId = "request_id" in frame ? frame.request_id : undefined;
    if (
      frame.type === "pong" ||
      (frame.type === "error" && requestId !== undefined && this.acks.has(requestId))
    ) {
      const ack = requestId === undefined ? undefined : this.acks.get(requestId);
      if (!ack || requestId === undefined) return;
      this.acks.delete(requestId);
      if (frame.type === "error") ack.reject(new ClientError(frame.code, frame.message));
      else ack.resolve();
      return;
    }
    // Not of a thread: onFrame listeners (an editor) take it.
    if (frame.type === "workflow_updated") return;
    if (frame.type === "thread_state") {
      const { type: _type, ...rest } = frame;
      const state = { ...rest, state: threadLiveStateFromWire(frame.state) };
      for (const listener of this.stateListeners) this.safely(() => listener(state));
      return;
    }
    const asked = requestId === undefined ? undefined : this.byRequest.get(requestId);
    if (frame.type === "message_queued") {
      if (!asked || requestId === undefined) return;
      this.sentMessages.delete(requestId);
      asked.bind(frame.thread_id);
      const queued = { messageId: frame.message_id, position: frame.position, mode: frame.mode };
      this.await(asked, frame.message_id, true, queued);
      return;
    }
    if (frame.type === "queued_message_cancelled") {
      this.waiting.get(frame.message_id)?.end({ status: "stopped" });
      const ack = requestId === undefined ? undefined : this.acks.get(requestId);
      if (ack && requestId !== undefined) {
        this.acks.delete(requestId);
        ack.resolve();
      }
      return;
    }
    const id = startsFor(frame);
    const waiter = id === undefined ? undefined : this.waiting.get(id);
    // A regenerate waits for `turn_started` only: its message's own frame is an older turn's replay.
    const starts = frame.type === "turn_started" || waiter?.awaiting?.userFrame === true;
    if (waiter && frame.thread_id !== undefined) {
      if (frame.type === "message" && frame.steered) waiter.receive(frame);
      else if (starts) {
        // Its turn starts: the thread's frames are this turn's from here on.
        this.waiting.delete(id as string);
        this.byThread.set(frame.thread_id, waiter);
      }
    }
    if (asked && requestId !== undefined) {
      this.sentMessages.delete(requestId);
      if (frame.type === "error" && frame.seq === undefined) {
        // The chat_message (or regenerate) was refused: nothing started.
        asked.end({ status: "error" }, new ClientError(frame.code, frame.message));
        return;
      }
      // The first frames of a turn carry its request_id (`thread`, the user's `message`): from here
      // on the thread's frames are this turn's. A waiting turn's are its own turn's, when it starts.
      if (!asked.awaiting && frame.thread_id !== undefined && this.byThread.get(frame.thread_id) !== asked) {
        asked.bind(frame.thread_id);
        this.byThread.set(frame.thread_id, asked);
      }
    }
    const turn = frame.thread_id === undefined ? undefined : this.byThread.get(frame.thread_id);
    if (turn) turn.receive(frame);
    else if (frame.type === "error") this.problem(new ClientError(frame.code, frame.message));
  }

  private problem(error: ClientError): void {
    // An oversized frame cannot be read for its thread: every live turn may be missing it.
    if (error.code === "frame_too_large") for (const turn of this.byThread.values()) turn.errors.push(error);
    this.safely(() => this.o.onError?.(error));
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch {
      // An app's handler must not break the socket's event handler.
    }
  }

  /** The socket went down: unanswered commands fail (they may or may not have run); for good, turns end too. */
  private down(final: boolean): void {
    // A command still in the outbox goes out on the next socket; one that went out may or may not have run.
    for (const [id, ack] of this.acks) {
      if (!ack.sent && !final) continue;
      this.acks.delete(id);
      ack.reject(new ClientError("closed", "the connection dropped before the server answered"));
    }
    if (!final) return;
    const turns = new Set([...this.byThread.values(), ...this.byRequest.values()]);
    for (const turn of turns)
      turn.end({ status: "error" }, new ClientError("closed", "the connection is closed"));
    this.outbox = [];
    if (!this.closed) this.problem(new ClientError("closed", "the connection was given up"));
  }
}

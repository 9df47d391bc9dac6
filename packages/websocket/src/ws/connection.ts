import type { ServerFrame } from "@agentwire-chat/protocol";
import type { FrameSubscriber, LoggedFrame } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import { CloseCode } from "./close-codes.js";
import { CHUNK_PREFIX, type Outgoing, queueMerging } from "./merge-text-deltas.js";
import type { RelayTimes } from "./relay-times.js";

/** The part of a `ws` WebSocket a connection uses (a fake satisfies it in unit tests). */
export interface SocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  /** Holds writes until `uncork`, so a batch of frames leaves in one syscall. */
  cork?(): void;
  uncork?(): void;
  /** Calls `listener` once when the send buffer has drained. */
  onceDrain?(listener: () => void): void;
}

const OPEN = 1;

export interface ConnectionOptions {
  id: string;
  userId: string;
  socket: SocketLike;
  logger: FastifyBaseLogger;
  sendSoftLimitBytes: number;
  sendHardLimitBytes: number;
  /** Past this many buffered bytes, frames wait and consecutive text deltas merge (default half the soft limit). */
  sendMergeThresholdBytes?: number;
  /**
   * The client renders nesting (it offered `agentwire.v1+nested`): it gets subtask text too. Otherwise
   * only depth-0 text reaches it, so a client that concatenates every chunk reads the answer alone.
   */
  nested?: boolean;
  /** Records each log frame's time from append to this socket's write (`/metrics`). */
  relayTimes?: RelayTimes | undefined;
}

/**
 * One open socket of one user: sends with backpressure, and tracks liveness for the heartbeat.
 * A turn's frames arrive in batches (one per group commit) and leave corked, in one write. A socket
 * that falls behind gets them through an outbox instead, where consecutive text deltas of one node
 * merge into one chunk (`seq_start`..`seq`), until it drains; past the soft limit it is closed 1013.
 */
export class Connection implements FrameSubscriber {
  readonly id: string;
  readonly userId: string;
  readonly logger: FastifyBaseLogger;
  private readonly socket: SocketLike;
  private readonly softLimit: number;
  private readonly hardLimit: number;
  private readonly mergeThreshold: number;
  private readonly nested: boolean;
  private readonly relayTimes: RelayTimes | undefined;
  private outbox: Outgoing[] = [];
  private outboxBytes = 0;
  private waitingForDrain = false;
  private alive = true;
  private congested = false;
  private resolveClosed!: () => void;
  /** Resolves once the socket has closed (shutdown waits on it). */
  readonly closed: Promise<void> = new Promise((resolve) => {
    this.resolveClosed = resolve;
  });

  constructor(options: ConnectionOptions) {
    this.id = options.id;
    this.userId = options.userId;
    this.logger = options.logger;
    this.socket = options.socket;
    this.softLimit = options.sendSoftLimitBytes;
    this.hardLimit = options.sendHardLimitBytes;
    this.mergeThreshold = options.sendMergeThresholdBytes ?? Math.floor(options.sendSoftLimitBytes / 2);
    this.nested = options.nested ?? false;
    this.relayTimes = options.relayTimes;
  }

  /** True while frames can still be sent. */
  get isOpen(): boolean {
    return this.socket.readyState === OPEN && !this.congested;
  }

  /**
   * Sends one frame outside the log (replies, `chat_resumed`); false when it was not sent. Behind
   * frames still in the outbox it waits its turn, so the socket's order is the order of sends.
   */
  send(frame: ServerFrame): boolean {
    if (!this.writable()) return false;
    const json = JSON.stringify(frame);
    if (this.outbox.length > 0) this.enqueue([{ json }]);
    else this.socket.send(json);
    return true;
  }

  /** Takes a batch of committed frames of a watched thread. */
  deliver(batch: readonly LoggedFrame[]): void {
    if (!this.writable()) return;
    const frames = this.nested ? batch : withoutNestedText(batch);
    if (frames.length === 0) return;
    if (this.outbox.length > 0 || this.socket.bufferedAmount > this.mergeThreshold) {
      this.enqueue(frames);
      return;
    }
    this.writeAll(frames);
    const times = this.relayTimes;
    if (!times) return;
    const now = performance.now();
    for (let i = 0; i < frames.length; i++) {
      const at = (frames[i] as LoggedFrame).at;
      if (at !== undefined) times.record(now - at);
    }
  }

  /** False (and the socket closing) once its buffer is past the soft or hard limit. */
  private writable(): boolean {
    if (this.socket.readyState !== OPEN || this.congested) return false;
    const buffered = this.socket.bufferedAmount + this.outboxBytes;
    if (buffered > this.hardLimit) {
      this.congested = true;
      this.logger.warn({ buffered }, "send buffer past hard limit; terminating");
      this.socket.terminate();
      return false;
    }
    if (buffered > this.softLimit) {
      this.congested = true;
      this.outbox = [];
      this.logger.warn({ buffered }, "send buffer past soft limit; closing 1013");
      this.socket.close(CloseCode.tryAgainLater, "client too slow; reconnect and resume_chat");
      return false;
    }
    return true;
  }

  private writeAll(frames: readonly Outgoing[]): void {
    if (frames.length === 1) {
      this.socket.send((frames[0] as Outgoing).json);
      return;
    }
    this.socket.cork?.();
    for (let i = 0; i < frames.length; i++) {
      // A huge batch (an instant provider) must not overrun the buffer: the rest waits and merges.
      if ((i & 63) === 63 && this.socket.bufferedAmount > this.mergeThreshold) {
        this.enqueue(frames.slice(i));
        break;
      }
      this.socket.send((frames[i] as Outgoing).json);
    }
    this.socket.uncork?.();
  }

  private enqueue(frames: readonly Outgoing[]): void {
    this.outboxBytes = queueMerging(this.outbox, frames, this.outboxBytes);
    // What waits counts against the limits too: a client that never drains is closed, not buffered for.
    if (this.writable()) this.scheduleFlush();
  }

  /** Flushes the outbox when the socket drains (or, as a fallback, shortly: not every buffer emits drain). */
  private scheduleFlush(): void {
    if (this.waitingForDrain) return;
    this.waitingForDrain = true;
    let done = false;
    const flush = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      this.waitingForDrain = false;
      this.flushOutbox();
    };
    const timer = setTimeout(flush, this.socket.bufferedAmount > 0 ? 50 : 0);
    this.socket.onceDrain?.(flush);
  }

  private flushOutbox(): void {
    if (this.outbox.length === 0 || !this.writable()) return;
    if (this.socket.bufferedAmount > this.mergeThreshold) {
      this.scheduleFlush();
      return;
    }
    const frames = this.outbox;
    this.outbox = [];
    this.outboxBytes = 0;
    this.writeAll(frames);
  }

  /** Closes the socket with a code and a short reason. */
  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  /** Drops the socket without a close handshake. */
  terminate(): void {
    this.socket.terminate();
  }

  /** Heartbeat tick: terminates a socket that did not answer the last ping, then pings again. */
  heartbeat(): void {
    if (!this.alive) {
      this.logger.info("missed pong; terminating");
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  /** Called by the route when the socket's `close` event fires. */
  markClosed(): void {
    this.resolveClosed();
  }

  /** Records a pong from the client. */
  markAlive(): void {
    this.alive = true;
  }
}

/**
 * The batch without text of depth > 0. Read off the JSON without parsing it: `"depth":0` can only be
 * the field itself (quotes inside content are escaped, and JSON numbers have no leading zeros).
 */
function withoutNestedText(frames: readonly LoggedFrame[]): readonly LoggedFrame[] {
  let kept: LoggedFrame[] | undefined;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as LoggedFrame;
    const nestedText = frame.json.startsWith(CHUNK_PREFIX) && !frame.json.includes('"depth":0');
    if (nestedText && kept === undefined) kept = frames.slice(0, i);
    else if (!nestedText) kept?.push(frame);
  }
  return kept ?? frames;
}

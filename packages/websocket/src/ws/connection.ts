import type { ServerFrame } from "@agentwire/protocol";
import type { FastifyBaseLogger } from "fastify";
import { CloseCode } from "./close-codes.js";

/** The part of a `ws` WebSocket a connection uses (a fake satisfies it in unit tests). */
export interface SocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
}

const OPEN = 1;

export interface ConnectionOptions {
  id: string;
  userId: string;
  socket: SocketLike;
  logger: FastifyBaseLogger;
  sendSoftLimitBytes: number;
  sendHardLimitBytes: number;
}

/** One open socket of one user: sends with backpressure, and tracks liveness for the heartbeat. */
export class Connection {
  readonly id: string;
  readonly userId: string;
  readonly logger: FastifyBaseLogger;
  private readonly socket: SocketLike;
  private readonly softLimit: number;
  private readonly hardLimit: number;
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
  }

  /** True while frames can still be sent. */
  get isOpen(): boolean {
    return this.socket.readyState === OPEN && !this.congested;
  }

  /**
   * Sends one frame; false when it was not sent. A socket whose buffer passed the soft limit gets no
   * more frames (a gap would break seq order) and is closed with 1013 so the client reconnects and
   * resumes; past the hard limit it cannot drain a close frame in time and is terminated.
   */
  send(frame: ServerFrame): boolean {
    if (this.socket.readyState !== OPEN || this.congested) return false;
    const buffered = this.socket.bufferedAmount;
    if (buffered > this.hardLimit) {
      this.congested = true;
      this.logger.warn({ buffered }, "send buffer past hard limit; terminating");
      this.socket.terminate();
      return false;
    }
    if (buffered > this.softLimit) {
      this.congested = true;
      this.logger.warn({ buffered }, "send buffer past soft limit; closing 1013");
      this.socket.close(CloseCode.tryAgainLater, "client too slow; reconnect and resume_chat");
      return false;
    }
    this.socket.send(JSON.stringify(frame));
    return true;
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

import type { ClientFrame, ServerFrame } from "@agentwire-chat/protocol";
import { backoffDelay, type ReconnectOptions } from "./backoff.js";
import { ClientError } from "./client-error.js";
import { readFrame } from "./read-frame.js";

/** The part of the WHATWG WebSocket the SDK uses (browsers, React Native, Node 22, the `ws` package). */
export type WebSocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code?: number }) => void) | null;
  onerror: ((event: unknown) => void) | null;
};

/** A WebSocket class: the global one by default, or e.g. `ws` on Node 20. */
export type WebSocketClass = new (url: string, protocols: string[]) => object;

/**
 * Where the socket stands: a socket `connecting` (attempt 0 is the first), `open`, `offline` with the
 * next attempt due at `retryAt` (ms since the epoch), or `closed` for good (closed, or given up on).
 */
export type ConnectionState =
  | { status: "connecting"; attempt: number }
  | { status: "open" }
  | { status: "offline"; attempt: number; retryAt: number }
  | { status: "closed" };

/** How a silent socket is noticed: a ping every `intervalMs`; dead when a ping brought nothing back for `timeoutMs`. */
export type HeartbeatOptions = { intervalMs?: number; timeoutMs?: number };

export type ConnectionOptions = {
  url: string;
  protocols: string[];
  WebSocket: WebSocketClass;
  reconnect: ReconnectOptions | false;
  heartbeat: HeartbeatOptions;
  maxFrameChars: number;
  onOpen(): void;
  onFrame(frame: ServerFrame): void;
  /** A frame of a type this SDK does not know: ignored, but its seq counts. */
  onUnknown(threadId: string, seq: number): void;
  /** A frame that could not be read, or the connection given up on. */
  onProblem(error: ClientError): void;
  /** The socket went down (a reconnect may follow). */
  onDown(final: boolean): void;
  /** Every change of `state`. */
  onState(state: ConnectionState): void;
};

const OPEN = 1;

/** One socket that comes back after a drop, with backoff and jitter, and notices when it went silent. */
export class Connection {
  private ws: WebSocketLike | undefined;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private beat: ReturnType<typeof setInterval> | undefined;
  private lastHeard = 0;
  private closed = false;
  private current: ConnectionState = { status: "connecting", attempt: 0 };

  constructor(private readonly o: ConnectionOptions) {}

  /** Where the socket stands now. */
  get state(): ConnectionState {
    return this.current;
  }

  /** True while a socket is open. */
  get isOpen(): boolean {
    return this.ws?.readyState === OPEN;
  }

  /** Opens the socket (again). */
  open(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.setState({ status: "connecting", attempt: this.attempt });
    let ws: WebSocketLike;
    try {
      ws = new this.o.WebSocket(this.o.url, this.o.protocols) as WebSocketLike;
    } catch (error) {
      // A bad URL throws at once; it will not get better.
      this.closed = true;
      this.setState({ status: "closed" });
      this.o.onProblem(new ClientError("closed", `cannot open ${this.o.url}: ${String(error)}`));
      this.o.onDown(true);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.startHeartbeat();
      this.setState({ status: "open" });
      this.o.onOpen();
    };
    ws.onmessage = (event) => {
      this.lastHeard = Date.now();
      const read = readFrame(event.data, this.o.maxFrameChars);
      if (read.kind === "frame") this.o.onFrame(read.frame);
      else if (read.kind === "bad") this.o.onProblem(new ClientError(read.code, read.message));
      else if (read.thread_id !== undefined && read.seq !== undefined)
        this.o.onUnknown(read.thread_id, read.seq);
    };
    ws.onerror = () => {
      // Always followed by close, where the reconnect is decided.
    };
    ws.onclose = () => this.down(ws);
  }

  /** Sends a frame when a socket is open; false otherwise. */
  send(frame: ClientFrame): boolean {
    if (!this.ws || this.ws.readyState !== OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Closes for good: no reconnect. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    const ws = this.ws;
    if (ws) this.down(ws);
    ws?.close(1000);
    if (this.current.status !== "closed") this.setState({ status: "closed" });
  }

  /** Tries at once instead of waiting out the backoff (a "retry now" button); no-op unless offline. */
  retryNow(): void {
    if (this.current.status === "offline") this.open();
  }

  /** Drops the socket as a network failure would (tests, a "reconnect now" button). */
  drop(): void {
    const ws = this.ws;
    if (!ws) return;
    this.down(ws);
    ws.close(4000, "dropped by the client");
  }

  private down(ws: WebSocketLike): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    ws.onopen = ws.onmessage = ws.onclose = null;
    clearInterval(this.beat);
    const r = this.o.reconnect;
    const again = !this.closed && r !== false && this.attempt < (r.maxAttempts ?? Number.POSITIVE_INFINITY);
    if (again) {
      const delay = backoffDelay(this.attempt, r);
      this.retry = setTimeout(() => this.open(), delay);
      this.setState({ status: "offline", attempt: ++this.attempt, retryAt: Date.now() + delay });
    } else this.setState({ status: "closed" });
    this.o.onDown(!again);
  }

  private setState(state: ConnectionState): void {
    this.current = state;
    this.o.onState(state);
  }

  private startHeartbeat(): void {
    const interval = this.o.heartbeat.intervalMs ?? 15_000;
    const timeout = this.o.heartbeat.timeoutMs ?? 10_000;
    // The first ping sent since the socket last brought anything; 0: none unanswered.
    let pingedAt = 0;
    this.beat = setInterval(() => {
      const ws = this.ws;
      if (!ws) return;
      const now = Date.now();
      if (pingedAt <= this.lastHeard) pingedAt = 0;
      // A half-open socket (a laptop lid, a dead NAT entry) never reports close: a ping unanswered for
      // timeoutMs is death. Counted from the ping, not from the last frame, so a timer that fires late
      // (a busy page or process) sends its ping before it judges.
      if (pingedAt !== 0 && now - pingedAt > timeout) {
        this.down(ws);
        ws.close(4001, "no answer to ping");
        return;
      }
      if (pingedAt === 0) pingedAt = now;
      this.send({ command: "ping", data: {} });
    }, interval);
  }
}

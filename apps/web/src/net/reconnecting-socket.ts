import type { ClientFrame, ServerFrame } from "@agentwire/protocol";
import { backoffDelay } from "./backoff.js";
import { parseServerFrame } from "./parse-server-frame.js";

export type ConnectionStatus = "connecting" | "open" | "reconnecting";

export type SocketOptions = {
  url: string;
  /** Read at every (re)connect, so a token entered later is used by the next attempt. */
  protocols: () => string[];
  onFrame: (frame: ServerFrame) => void;
  /** Called on every open, first or after a drop: the place to resume turns. */
  onOpen: () => void;
  onStatus: (status: ConnectionStatus) => void;
};

/** One WebSocket that comes back after a drop, with backoff; the caller resumes what it was watching. */
export class ReconnectingSocket {
  private ws: WebSocket | undefined;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(private readonly options: SocketOptions) {}

  connect(): void {
    this.stopped = false;
    clearTimeout(this.timer);
    this.options.onStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.options.url, this.options.protocols());
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.options.onStatus("open");
      this.options.onOpen();
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      const frame = parseServerFrame(event.data);
      if (frame) this.options.onFrame(frame);
    };
    ws.onclose = () => {
      if (this.ws !== ws || this.stopped) return;
      this.options.onStatus("reconnecting");
      this.timer = setTimeout(() => this.connect(), backoffDelay(this.attempt++));
    };
  }

  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** Sends a frame when open; returns false otherwise (the caller keeps the action for the next open). */
  send(frame: ClientFrame): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Drops the connection as a network failure would, to exercise reconnecting (dev tools, tests). */
  drop(): void {
    this.ws?.close(4000, "dropped by the client");
  }

  /** Reconnects now, e.g. with a new token. */
  restart(): void {
    const old = this.ws;
    this.ws = undefined;
    old?.close(1000);
    this.attempt = 0;
    this.connect();
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
  }
}

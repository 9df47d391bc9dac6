import type { WebSocketClass } from "@agentwire-chat/client";
import WebSocket from "ws";
import { nothingAnswers, WANTS_TOKEN } from "../server-messages.js";

/** How a socket the SDK opened fared: open, or refused with a reason fit to show. */
export type SocketOutcome = { ok: true } | { ok: false; message: string };

/** Where the socket is: what a wrong path is told. */
const SOCKET_PATH = "/ws";

/**
 * The `ws` class for the SDK, reporting each socket's outcome to `report`. The SDK only learns that a
 * socket closed; the CLI, which must tell a person why the first one failed (nothing listening, a
 * token wanted, a wrong path), reads the reason off the `ws` events. Never the URL: it may hold a token.
 */
export function watchedSocketClass(report: (outcome: SocketOutcome) => void): WebSocketClass {
  return class WatchedSocket extends WebSocket {
    constructor(url: string, protocols: string[]) {
      super(url, protocols);
      const host = new URL(url).host;
      this.once("open", () => report({ ok: true }));
      this.once("error", (error: NodeJS.ErrnoException) => report({ ok: false, message: why(error, host) }));
    }
  };
}

function why(error: NodeJS.ErrnoException, host: string): string {
  if (error.code === "ECONNREFUSED") return nothingAnswers(host);
  // `ws` reports a refused handshake only in its message.
  const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
  if (status === "401") return WANTS_TOKEN;
  if (status === "404")
    return `server refused: HTTP 404 (no socket at that path: the server's socket is at ${SOCKET_PATH}, e.g. --url ws://${host}${SOCKET_PATH})`;
  return status ? `server refused: HTTP ${status}` : error.message;
}

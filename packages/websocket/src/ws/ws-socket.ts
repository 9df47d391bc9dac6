import type { RawData, WebSocket } from "ws";
import type { SocketLike } from "./connection.js";

/** The `ws` socket as a connection uses it; cork and drain come from its TCP socket. */
export function socketLike(ws: WebSocket): SocketLike {
  const raw = (ws as unknown as { _socket?: import("node:net").Socket })._socket;
  return {
    get readyState() {
      return ws.readyState;
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
    ping: () => ws.ping(),
    cork: () => raw?.cork(),
    uncork: () => raw?.uncork(),
    onceDrain: (listener) => raw?.once("drain", listener),
  };
}

/** A text message's payload as a string, however ws delivered it. */
export function rawToText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

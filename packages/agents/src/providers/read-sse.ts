import type { IncomingMessage } from "node:http";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderStallError } from "./idle-timeout-fetch.js";

/** Return `false` from a message handler to stop reading (the body is destroyed, the read resolves). */
export type SseHandler = (message: EventSourceMessage) => boolean | undefined;

/**
 * Reads a server-sent event stream pushed by node: each message goes to `onMessage` synchronously
 * within the network read that completed it (no promise or iterator per chunk). Resolves when the
 * body ends or the handler stops it; rejects when the connection fails, or with a ProviderStallError
 * when the provider sent nothing for `idleMs`.
 */
export function readSse(body: IncomingMessage, idleMs: number, onMessage: SseHandler): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let stopped = false;
    const parser = createParser({
      onEvent: (message) => {
        if (stopped || onMessage(message) !== false) return;
        stopped = true;
        body.destroy();
        resolve();
      },
    });
    body.setEncoding("utf8");
    // One timer for the whole body, pushed back by every read.
    const timer = setTimeout(() => body.destroy(new ProviderStallError(idleMs)), idleMs);
    body.on("data", (text: string) => {
      timer.refresh();
      parser.feed(text);
    });
    body.once("end", () => {
      clearTimeout(timer);
      resolve();
    });
    body.once("error", (error) => {
      clearTimeout(timer);
      if (!stopped) reject(error);
    });
    body.once("close", () => {
      clearTimeout(timer);
      // A body destroyed without an error (the turn's abort is reported as one) ends the read quietly.
      if (!body.complete && !stopped && !body.errored) resolve();
    });
  });
}

/** Reads a server-sent event stream from a web body (a fetch other than the transport's). */
export async function readSseWeb(body: ReadableStream<Uint8Array>, onMessage: SseHandler): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let stopped = false;
  const parser = createParser({
    onEvent: (message) => {
      if (!stopped && onMessage(message) === false) stopped = true;
    },
  });
  try {
    while (!stopped) {
      const next = await reader.read();
      if (next.done) break;
      parser.feed(decoder.decode(next.value, { stream: true }));
    }
  } finally {
    if (stopped) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
}

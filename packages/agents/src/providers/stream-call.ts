import type { EventSourceMessage } from "eventsource-parser";
import type { HttpTransport } from "./http-transport.js";
import { type ProviderErrorContext, streamFailure, toProviderErrorInfo } from "./provider-error.js";
import type { ProviderErrorInfo, ProviderEvent } from "./provider-event.js";
import type { EmitProviderEvent } from "./pushed-events.js";
import { readSse, readSseWeb } from "./read-sse.js";

/** Reads one SSE message of a started stream: the failure that ends it, or undefined to read on. */
export type ReadMessage = (message: EventSourceMessage) => ProviderErrorInfo | undefined;

/** Where a started call's stream is read from and what its end is reported with. */
export type StartedStream = {
  response: Response;
  /** The transport that made the request (its node body is read directly); absent for a given fetch. */
  transport: HttpTransport | undefined;
  idleMs: number;
  signal: AbortSignal;
  emit: EmitProviderEvent;
  /** The error context of a failure after the stream started (with the request id). */
  midStream: ProviderErrorContext;
};

/** A call's failure, the way every stream ends on one: the error, then `finish {reason: "error"}`. */
export function emitFailure(emit: EmitProviderEvent, error: ProviderErrorInfo): void {
  emit({ type: "error", error });
  emit({ type: "finish", reason: "error" });
}

/**
 * Reads a started call's event stream with `read` and ends the call: with the failure a message or
 * the read reported, with a failure when the stream ended before the model finished (a body cut early
 * ends quietly; only a finish reason proves the output complete), else with `finish()`'s held-back
 * events (tool calls, usage, the finish). Nothing is emitted once the signal fired.
 */
export async function readToEnd(
  stream: StartedStream,
  read: ReadMessage,
  end: { finished: () => boolean; finish: () => ProviderEvent[] },
): Promise<void> {
  const { response, transport, signal, emit, midStream } = stream;
  let failure: ProviderErrorInfo | undefined;
  const onMessage = (message: EventSourceMessage) => {
    failure = read(message);
    return failure ? false : undefined;
  };
  try {
    const raw = transport?.takeBody(response);
    if (raw) await readSse(raw, stream.idleMs, onMessage);
    else if (response.body) await readSseWeb(response.body, onMessage);
  } catch (err) {
    if (signal.aborted) return;
    failure ??= toProviderErrorInfo(err, midStream);
  }
  if (signal.aborted) return;
  if (failure) return emitFailure(emit, failure);
  if (!end.finished()) {
    const message = "the stream ended before the model finished (connection closed early)";
    return emitFailure(emit, streamFailure(message, midStream.requestId));
  }
  for (const event of end.finish()) emit(event);
}

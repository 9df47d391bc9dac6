import { boundedRetryFetch, type FetchLike } from "./bounded-retry-fetch.js";

/** PROVIDER_IDLE_TIMEOUT_MS when unset: the longest silence allowed once a response has started. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Thrown into a response body whose provider went silent for longer than the idle timeout. */
export class ProviderStallError extends Error {
  override readonly name = "ProviderStallError";

  constructor(readonly idleMs: number) {
    super(`the provider stalled: it sent nothing for ${formatDuration(idleMs)}, so the request was aborted`);
  }
}

/** The fetch every provider's SDK client is built with: bounded retry waits over idle-timed bodies. */
export function providerFetch(options: {
  maxRetryDelayMs: number;
  idleTimeoutMs?: number | undefined;
  fetch?: FetchLike | undefined;
}): FetchLike {
  return boundedRetryFetch(
    options.maxRetryDelayMs,
    idleTimeoutFetch(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, options.fetch),
  );
}

/**
 * Wraps fetch so a response body that goes silent fails instead of waiting forever. The SDKs'
 * `timeout` covers only the time to response headers; this covers every wait after them. The timer
 * runs only while a read waits on the network (a slow consumer is not a stalled provider) and restarts
 * on every chunk, keep-alive comments included: a provider that keeps the line alive is not stalled.
 * On expiry the body errors with a ProviderStallError and is cancelled, which closes the connection.
 */
export function idleTimeoutFetch(idleMs: number, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const watched = new Response(watchBody(response.body, idleMs), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // The SDKs log the URL of a response; a constructed Response has none of its own.
    Object.defineProperty(watched, "url", { value: response.url });
    return watched;
  };
}

function watchBody(body: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // One timer for the whole body, re-armed per read (a Promise and a timer per chunk cost more than the
  // chunk); it only counts while a read waits on the network.
  let timer: NodeJS.Timeout | undefined;
  let waiting = false;
  let stalled: ProviderStallError | undefined;
  const onIdle = () => {
    if (!waiting) return;
    stalled = new ProviderStallError(idleMs);
    // Cancelling the network body aborts the request (a half-read connection cannot be reused) and
    // ends the pending read, which then reports the stall.
    reader.cancel(stalled).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        waiting = true;
        if (timer) timer.refresh();
        else timer = setTimeout(onIdle, idleMs);
        try {
          const next = await reader.read();
          if (stalled) throw stalled;
          if (next.done) {
            clearTimeout(timer);
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          clearTimeout(timer);
          if (error !== stalled) reader.cancel(error).catch(() => {});
          throw error;
        } finally {
          waiting = false;
        }
      },
      cancel: (reason) => {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    },
    // Read only when the consumer asks, so the timer measures the provider, not the consumer.
    { highWaterMark: 0 },
  );
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms} ms`;
}

import type { EmitProviderEvent } from "./pushed-events.js";

/**
 * At most this many fresh attempts after a stall, whatever PROVIDER_MAX_RETRIES says: each stall costs
 * a whole idle timeout, and at the defaults (60 s) a third attempt would run into the turn's wall clock,
 * which ends the turn as `budget_exceeded` instead of naming the stalled provider.
 */
const MAX_STALL_RETRIES = 1;

/**
 * Runs one provider call and makes it again when its response stalled before it released any event
 * (up to PROVIDER_MAX_RETRIES times, at most MAX_STALL_RETRIES). Once an event is out the stall is the
 * call's error: the consumer has shown that text, and a fresh answer would not continue it. Adapters
 * hold back tool calls, usage and the finish until the end, so in practice "released" means text or
 * thinking reached the consumer. The stalled attempt's error and finish are dropped. A retried call
 * that stalls again says so, with the whole wait: each attempt waited the idle timeout.
 */
export async function retryStalledStream(
  attempt: (emit: EmitProviderEvent, signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
  maxRetries: number,
  emit: EmitProviderEvent,
  now: () => number = Date.now,
): Promise<void> {
  if (signal.aborted) return attempts(attempt, signal, maxRetries, emit, now);
  // The SDKs add an abort listener to the signal they are given on every request and never remove
  // it: the turn's own signal would gather one per model call (Node warns past ten). Each call gets a
  // signal of its own, aborted with the turn's and dropped with the call.
  const call = new AbortController();
  const onAbort = () => call.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    await attempts(attempt, call.signal, maxRetries, emit, now);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

async function attempts(
  attempt: (emit: EmitProviderEvent, signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
  maxRetries: number,
  emit: EmitProviderEvent,
  now: () => number,
): Promise<void> {
  const retries = Math.min(maxRetries, MAX_STALL_RETRIES);
  const started = now();
  for (let made = 0; ; made++) {
    let released = false;
    let again = false;
    await attempt((event) => {
      if (again) return;
      if (!released && event.type === "error" && event.error.stalled) {
        if (made < retries) {
          again = true;
          return;
        }
        if (made > 0) {
          const message = `${event.error.message}; that was attempt ${made + 1} of ${made + 1} (each stalled the same way), ${formatWait(now() - started)} in all`;
          released = true;
          emit({ ...event, error: { ...event.error, message } });
          return;
        }
      }
      released = true;
      emit(event);
    }, signal);
    if (!again) return;
  }
}

function formatWait(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)}s`;
}

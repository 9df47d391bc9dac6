/** What `abortable` resolves to when the signal fired first. */
export const ABORTED: unique symbol = Symbol("aborted");

const onAbort = new WeakMap<AbortSignal, Promise<typeof ABORTED>>();

/** One promise per signal that resolves on abort, so racing costs no listener per await. */
function abortPromise(signal: AbortSignal): Promise<typeof ABORTED> {
  let p = onAbort.get(signal);
  if (!p) {
    p = signal.aborted
      ? Promise.resolve(ABORTED)
      : new Promise((resolve) => signal.addEventListener("abort", () => resolve(ABORTED), { once: true }));
    onAbort.set(signal, p);
  }
  return p;
}

/**
 * Races a promise against the signal: a tool or stream that ignores its signal cannot hold the loop.
 * The losing promise keeps running; its rejection is swallowed.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return Promise.race([promise, abortPromise(signal)]);
}

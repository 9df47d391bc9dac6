/** What `abortable` resolves to when the signal fired first. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Races a promise against the signal: a tool or stream that ignores its signal cannot hold the loop.
 * The listener is removed as soon as the promise settles: racing against one long-lived abort promise
 * instead would keep a reaction per call alive until the signal fires (MBs over a long stream).
 * The losing promise keeps running; its rejection is swallowed.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      resolve(ABORTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

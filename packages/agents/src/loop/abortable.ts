/** What `abortable` resolves to when the signal fired first. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Signals with one shared abort listener (a level's, see `shareAbortListener`): what to wake when it
 * fires. Waiting on them adds to a Set instead of adding and removing an EventTarget listener.
 */
const shared = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Gives `signal` one abort listener for its whole life, which `abortable` and AbortableStream use
 * instead of a listener each. Only for a signal that is certain to fire when its work is done (a
 * level's signal fires in `level.dispose()`): until then the listener keeps it alive.
 */
export function shareAbortListener(signal: AbortSignal): void {
  if (signal.aborted || shared.has(signal)) return;
  const waiting = new Set<() => void>();
  shared.set(signal, waiting);
  signal.addEventListener(
    "abort",
    () => {
      shared.delete(signal);
      for (const wake of waiting) wake();
      waiting.clear();
    },
    { once: true },
  );
}

/** Calls `wake` once when `signal` fires (not at all if it already has); undo with `forgetAbort`. */
export function watchAbort(signal: AbortSignal, wake: () => void): void {
  const waiting = shared.get(signal);
  if (waiting) waiting.add(wake);
  else signal.addEventListener("abort", wake, { once: true });
}

/** Stops `watchAbort`'s wake-up. */
export function forgetAbort(signal: AbortSignal, wake: () => void): void {
  const waiting = shared.get(signal);
  if (waiting) waiting.delete(wake);
  else signal.removeEventListener("abort", wake);
}

/**
 * Races a promise against the signal: a tool or stream that ignores its signal cannot hold the loop.
 * The wake-up is removed as soon as the promise settles: racing against one long-lived abort promise
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
    watchAbort(signal, onAbort);
    promise.then(
      (value) => {
        forgetAbort(signal, onAbort);
        resolve(value);
      },
      (error: unknown) => {
        forgetAbort(signal, onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Aborts `target` with the reason of the first of `sources` that fires (at once if one has); returns
 * the undo, which removes the listeners. What `AbortSignal.any` does, for a level's signal: Node 20's
 * `AbortSignal.any` costs ~50 µs a call (weak references and a finalization registry per source),
 * once per level of every turn and subtask.
 */
export function linkAbort(
  target: AbortController,
  sources: readonly (AbortSignal | undefined)[],
): () => void {
  const linked: [AbortSignal, () => void][] = [];
  const unlink = () => {
    for (const [source, onAbort] of linked) source.removeEventListener("abort", onAbort);
    linked.length = 0;
  };
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      unlink();
      target.abort(source.reason);
      return unlink;
    }
    const onAbort = () => {
      unlink();
      target.abort(source.reason);
    };
    source.addEventListener("abort", onAbort, { once: true });
    linked.push([source, onAbort]);
  }
  return unlink;
}

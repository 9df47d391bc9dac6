import { performance } from "node:perf_hooks";

/**
 * Calls `onTick` every `intervalMs` with how late that tick came, in ms: the event loop's lag over
 * the last interval (a loop blocked for 100 ms fires a 20 ms timer about 80 ms late). One timer,
 * unref'd: it never keeps the process alive. Returns the function that stops it.
 */
export function watchEventLoopLag(intervalMs: number, onTick: (lagMs: number) => void): () => void {
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const lag = Math.max(0, now - last - intervalMs);
    last = now;
    onTick(lag);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

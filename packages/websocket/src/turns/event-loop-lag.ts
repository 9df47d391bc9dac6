import { type EventLoopUtilization, performance } from "node:perf_hooks";

/**
 * Calls `onTick` every `intervalMs` with how late that tick came, in ms: the event loop's lag over
 * the last interval (a loop blocked for 100 ms fires a 20 ms timer about 80 ms late), and the
 * loop's utilization (the share of time it was busy, 0 to 1), smoothed over about five intervals
 * since a single 20 ms sample is mostly 0 or 1. One timer, unref'd: it never keeps the process
 * alive. Returns the function that stops it.
 */
export function watchEventLoopLag(
  intervalMs: number,
  onTick: (lagMs: number, utilization: number) => void,
): () => void {
  let last = performance.now();
  let lastElu: EventLoopUtilization = performance.eventLoopUtilization();
  let utilization = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const lag = Math.max(0, now - last - intervalMs);
    last = now;
    const elu = performance.eventLoopUtilization();
    utilization +=
      UTILIZATION_WEIGHT * (performance.eventLoopUtilization(elu, lastElu).utilization - utilization);
    lastElu = elu;
    onTick(lag, utilization);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Each sample's weight in the moving average: about the last five intervals count. */
const UTILIZATION_WEIGHT = 0.2;

import { ADMISSION_TICK_MS, type AdmissionLimitsInput } from "./admission-limits.js";
import { AdmissionQueue } from "./admission-queue.js";
import { watchEventLoopLag } from "./event-loop-lag.js";

/** A running admission queue: `stop` ends the event-loop measuring that ticks it. */
export type RunningAdmission = { queue: AdmissionQueue; stop: () => void };

/**
 * The admission queue as a server runs it: ticked every ADMISSION_TICK_MS with the event loop's
 * measured lag and utilization, which its brakes act on.
 */
export function startAdmission(limits: AdmissionLimitsInput): RunningAdmission {
  const queue = new AdmissionQueue(limits);
  const stop = watchEventLoopLag(ADMISSION_TICK_MS, (lag, utilization) => queue.tick(lag, utilization));
  return { queue, stop };
}

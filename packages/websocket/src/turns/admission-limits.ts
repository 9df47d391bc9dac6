import { z } from "zod";

/** How often the event loop's lag and utilization are measured and a batch of queued turns may be admitted. */
export const ADMISSION_TICK_MS = 20;

/** The production defaults (apps/server's MAX_LIVE_TURNS, ADMISSION_* read them). */
export const admissionDefaults = {
  maxLiveTurns: 2_000,
  maxLagMs: 40,
  maxUtilization: 0.8,
  queueMax: 10_000,
  queueMaxPerUser: 100,
  // Starts cost a few ms of CPU each and the brakes see them only once begun: 20 per tick let lag
  // p99 reach 42-47 ms with 1,000 streams starting (bench stream); 10 held it at 36-39 ms.
  batch: 10,
} as const;

/** The admission queue's limits; tests lower them, apps/server sets them from the environment. */
export const AdmissionLimits = z.strictObject({
  /** Turns admitted and not yet ended or waiting on the user, in this process; more wait in the queue. */
  maxLiveTurns: z.number().int().positive().default(admissionDefaults.maxLiveTurns),
  /** While the event loop's last measured lag is above this, no turn is admitted; 0: no lag brake. */
  maxLagMs: z.number().int().min(0).default(admissionDefaults.maxLagMs),
  /**
   * While the event loop's utilization (its share of time busy, smoothed over ~100 ms) is above this,
   * no turn is admitted: the brake that acts before lag appears, so running streams keep their pace.
   * 0: no utilization brake.
   */
  maxUtilization: z.number().min(0).max(1).default(admissionDefaults.maxUtilization),
  /** Turns waiting at once, all users; one more is refused with `overloaded`. 0: nothing waits. */
  queueMax: z.number().int().min(0).default(admissionDefaults.queueMax),
  /** Turns one user may have waiting at once; one more is refused with `overloaded`. */
  queueMaxPerUser: z.number().int().min(0).default(admissionDefaults.queueMaxPerUser),
  /**
   * Most turns admitted between two `tick()`s (the fast path included), so thousands of starts in one
   * instant spread out. Unset: no bound, for a queue nobody ticks (tests, embedders without a lag signal).
   */
  batch: z.number().int().positive().optional(),
});
export type AdmissionLimits = z.infer<typeof AdmissionLimits>;
export type AdmissionLimitsInput = z.input<typeof AdmissionLimits>;

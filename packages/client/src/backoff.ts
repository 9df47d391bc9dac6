/** When to reconnect a dropped socket: `initialDelayMs` doubling up to `maxDelayMs`, with jitter. */
export type ReconnectOptions = {
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Give up after this many failed attempts in a row (default: never). */
  maxAttempts?: number;
};

/** The delay before reconnect attempt `attempt` (0-based): half to all of the doubled base, so tabs spread out. */
export function backoffDelay(attempt: number, options: ReconnectOptions, random = Math.random): number {
  const base = Math.min(options.maxDelayMs ?? 15_000, (options.initialDelayMs ?? 500) * 2 ** attempt);
  return Math.round(base * (0.5 + random() / 2));
}

/** Reconnect delays: 0.5 s doubling to 15 s, with jitter so many tabs don't reconnect in step. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(15_000, 500 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.5 + random() / 2));
}

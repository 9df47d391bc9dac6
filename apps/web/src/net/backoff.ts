import { backoffDelay as sdkBackoff } from "@agentwire/client";

/** Reconnect delays: 0.5 s doubling to 15 s, with jitter so many tabs don't reconnect in step (the SDK's). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  return sdkBackoff(Math.max(0, attempt), {}, random);
}

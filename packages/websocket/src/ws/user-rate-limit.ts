import { RateLimiter } from "./rate-limiter.js";

/** A token bucket's shape: `burst` at once, refilled at `perMinute`. */
export type UserRate = { perMinute: number; burst: number };

/**
 * A per-user token bucket (e.g. turns started). One process alone counts in memory
 * (`LocalUserRateLimit`); instances sharing Redis count in Redis (`RedisUserRateLimit`), so a user
 * cannot multiply the budget by spreading sockets over instances.
 */
export interface UserRateLimit {
  /** Takes one token from the user's bucket; false when it is empty. Rejects when the bucket cannot be read. */
  take(userId: string, rate: UserRate): Promise<boolean>;
}

// Buckets of users that went quiet are dropped once this many are kept (a full bucket holds no state).
const PRUNE_ABOVE = 10_000;

/** The per-user buckets of one process. */
export class LocalUserRateLimit implements UserRateLimit {
  private readonly buckets = new Map<string, RateLimiter>();

  constructor(private readonly now: () => number = Date.now) {}

  async take(userId: string, rate: UserRate): Promise<boolean> {
    const now = this.now();
    let bucket = this.buckets.get(userId);
    if (!bucket) {
      if (this.buckets.size >= PRUNE_ABOVE) this.prune(now);
      bucket = new RateLimiter(rate.perMinute / 60, rate.burst, now);
      this.buckets.set(userId, bucket);
    }
    return bucket.tryTake(now);
  }

  private prune(now: number): void {
    for (const [userId, bucket] of this.buckets) if (bucket.isFull(now)) this.buckets.delete(userId);
  }
}

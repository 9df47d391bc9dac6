import type { Redis } from "ioredis";
import { REDIS_NOW } from "./redis-time.js";

// A token bucket in one script (read, refill, take, write), timed by Redis's clock so the instances'
// clocks need not agree. KEYS[1] the user's bucket; ARGV: per minute, burst. Kept only while it refills.
const TAKE = `${REDIS_NOW}
local perMinute = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local state = redis.call("HMGET", KEYS[1], "tokens", "at")
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * perMinute / 60000)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call("HSET", KEYS[1], "tokens", tostring(tokens), "at", tostring(now))
redis.call("PEXPIRE", KEYS[1], math.ceil((burst - tokens) * 60000 / perMinute) + 1000)
return taken`;

/** A token bucket's shape: `burst` at once, refilled at `perMinute`. */
export type UserRate = { perMinute: number; burst: number };

export interface RedisUserRateLimitOptions {
  prefix?: string;
  /** Names the bucket, so different limits of one user do not share it (default `turns`). */
  name?: string;
}

/**
 * A per-user token bucket shared by every instance: `<prefix>rate:<name>:<user>` in Redis. The server
 * takes it as its `UserRateLimit`.
 */
export class RedisUserRateLimit {
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: RedisUserRateLimitOptions = {},
  ) {
    this.prefix = `${options.prefix ?? "aw:"}rate:${options.name ?? "turns"}:`;
  }

  /** The Redis key of a user's bucket. */
  key(userId: string): string {
    return `${this.prefix}${userId}`;
  }

  /** Takes one token from the user's bucket; false when it is empty. */
  async take(userId: string, rate: UserRate): Promise<boolean> {
    return (await this.redis.eval(TAKE, 1, this.key(userId), rate.perMinute, rate.burst)) === 1;
  }
}

import type { Redis } from "ioredis";
import type { UserRate, UserRateLimit } from "../ws/user-rate-limit.js";
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

export interface RedisUserRateLimitOptions {
  prefix?: string;
  /** Names the bucket, so different limits of one user do not share it (default `turns`). */
  name?: string;
}

/** A per-user token bucket shared by every instance: `<prefix>rate:<name>:<user>` in Redis. */
export class RedisUserRateLimit implements UserRateLimit {
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

  async take(userId: string, rate: UserRate): Promise<boolean> {
    return (await this.redis.eval(TAKE, 1, this.key(userId), rate.perMinute, rate.burst)) === 1;
  }
}

import type { Redis } from "ioredis";
import { REDIS_NOW } from "./redis-time.js";

export interface RedisConnectionQuotaOptions {
  prefix?: string;
  /**
   * An entry not refreshed for this long stops counting: the sockets of an instance that died
   * (kill -9, no clean close) free their user's slots within it. Refreshed at a third of it.
   */
  ttlMs: number;
  onError?: (error: unknown) => void;
}

// Lapsed entries out, then count and add in one script: two instances cannot both admit the last slot.
// KEYS[1] the user's set; ARGV: connection id, cap, ttl.
const ACQUIRE = `${REDIS_NOW}
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now)
if not redis.call("ZSCORE", KEYS[1], ARGV[1]) and redis.call("ZCARD", KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call("ZADD", KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call("PEXPIRE", KEYS[1], ARGV[3])
return 1`;

// A connection still open is counted again even if its entry lapsed (Redis was unreachable for a
// while): it is really open. KEYS[1] the user's set; ARGV: ttl, connection ids.
const REFRESH = `${REDIS_NOW}
local expiry = now + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call("ZADD", KEYS[1], expiry, ARGV[i]) end
redis.call("PEXPIRE", KEYS[1], ARGV[1])
return #ARGV - 1`;

/**
 * The per-user connection cap across instances: one sorted set per user, `<prefix>conns:<user>`, of
 * connection ids scored by when they lapse. Each instance refreshes its own sockets' entries on a
 * heartbeat, so a dead instance's entries lapse within the TTL and its users get their slots back.
 * The server takes it as its `ConnectionQuota`.
 */
export class RedisConnectionQuota {
  private readonly held = new Map<string, Set<string>>();
  private readonly prefix: string;
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisConnectionQuotaOptions,
  ) {
    this.prefix = options.prefix ?? "aw:";
    this.heartbeat = setInterval(() => void this.refresh(), Math.max(20, Math.floor(options.ttlMs / 3)));
    this.heartbeat.unref();
  }

  /** The Redis key of a user's connections. */
  key(userId: string): string {
    return `${this.prefix}conns:${userId}`;
  }

  /** Counts the connection for the user unless they already have `max` open (false: nothing counted). */
  async acquire(userId: string, connectionId: string, max: number): Promise<boolean> {
    const admitted = await this.redis.eval(
      ACQUIRE,
      1,
      this.key(userId),
      connectionId,
      max,
      this.options.ttlMs,
    );
    if (admitted !== 1) return false;
    let held = this.held.get(userId);
    if (!held) {
      held = new Set();
      this.held.set(userId, held);
    }
    held.add(connectionId);
    return true;
  }

  /** Stops counting the connection (idempotent). */
  async release(userId: string, connectionId: string): Promise<void> {
    const held = this.held.get(userId);
    if (held?.delete(connectionId) && held.size === 0) this.held.delete(userId);
    // Sent on the same connection as any refresh computed before the delete, so it lands after it.
    await this.redis.zrem(this.key(userId), connectionId);
  }

  /** Stops the heartbeat and uncounts every connection this instance still holds (a clean shutdown). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const held = [...this.held];
    this.held.clear();
    if (held.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [userId, ids] of held) pipeline.zrem(this.key(userId), ...ids);
    await pipeline.exec().catch(() => undefined);
  }

  private async refresh(): Promise<void> {
    if (this.held.size === 0) return;
    const pipeline = this.redis.pipeline();
    for (const [userId, ids] of this.held) {
      pipeline.eval(REFRESH, 1, this.key(userId), this.options.ttlMs, ...ids);
    }
    try {
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([error]) => error);
      if (failed) this.options.onError?.(failed[0]);
    } catch (error) {
      // Redis unreachable: entries may lapse (and are counted again on a later beat).
      this.options.onError?.(error);
    }
  }
}

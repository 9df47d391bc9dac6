import { RedisConnectionQuota } from "@agentwire-chat/cluster";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { until } from "@agentwire-chat/testkit/until";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
const connections: Redis[] = [];
const quotas: RedisConnectionQuota[] = [];

beforeAll(async () => {
  if (!skip) server = await startRedis();
});
afterEach(async () => {
  await Promise.all(quotas.splice(0).map((q) => q.close().catch(() => undefined)));
  await Promise.all(connections.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
});
afterAll(async () => {
  await server?.stop();
});

/** One "instance": its own Redis connection and quota, as a server process has. */
function instance(ttlMs = 60_000, errors: unknown[] = []): { quota: RedisConnectionQuota; redis: Redis } {
  const redis = new Redis(server!.url, { maxRetriesPerRequest: 0 });
  connections.push(redis);
  const quota = new RedisConnectionQuota(redis, { ttlMs, onError: (e) => errors.push(e) });
  quotas.push(quota);
  return { quota, redis };
}

let userNo = 0;
const newUser = () => `user-${++userNo}-${Date.now()}`;

/** Redis's own clock, in ms (the quota scores entries with it). */
async function redisNow(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe.skipIf(skip)("RedisConnectionQuota", () => {
  it("holds the cap across two instances, and a released slot is free again on either", async () => {
    const a = instance().quota;
    const b = instance().quota;
    const user = newUser();
    expect(await a.acquire(user, "c1", 3)).toBe(true);
    expect(await b.acquire(user, "c2", 3)).toBe(true);
    expect(await a.acquire(user, "c3", 3)).toBe(true);
    expect(await b.acquire(user, "c4", 3)).toBe(false);
    expect(await a.acquire(user, "c5", 3)).toBe(false);
    // Another user is counted apart.
    expect(await b.acquire(newUser(), "c6", 3)).toBe(true);
    await a.release(user, "c1");
    expect(await b.acquire(user, "c4", 3)).toBe(true);
    expect(await a.acquire(user, "c5", 3)).toBe(false);
  });

  it("admits exactly the cap when two instances race for the last slots", async () => {
    const a = instance().quota;
    const b = instance().quota;
    const user = newUser();
    const attempts = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? a : b).acquire(user, `race-${i}`, 16),
    );
    const admitted = (await Promise.all(attempts)).filter(Boolean);
    expect(admitted).toHaveLength(16);
  });

  it("keeps a live instance's entries past the TTL (heartbeat), and lets a dead instance's lapse", async () => {
    const ttlMs = 300;
    const errors: unknown[] = [];
    const a = instance(ttlMs, errors);
    const b = instance(ttlMs);
    const user = newUser();
    expect(await a.quota.acquire(user, "a1", 2)).toBe(true);
    expect(await a.quota.acquire(user, "a2", 2)).toBe(true);
    const firstExpiry = Number(await b.redis.zscore(a.quota.key(user), "a1"));

    // Redis's clock passes the entries' first expiry: only the heartbeat can have kept them.
    await until(
      async () => (await redisNow(b.redis)) > firstExpiry + ttlMs,
      "Redis's clock to pass the first expiry",
      {
        timeoutMs: 5_000,
      },
    );
    expect(await b.quota.acquire(user, "b1", 2)).toBe(false);
    expect(Number(await b.redis.zscore(a.quota.key(user), "a1"))).toBeGreaterThan(firstExpiry);

    // "kill -9": A's Redis connection drops without releasing anything; its heartbeat now fails.
    a.redis.disconnect();
    const killedAt = Date.now();
    await until(() => b.quota.acquire(user, "b1", 2), "a slot freed by A's lapsed entries", {
      timeoutMs: 5_000,
    });
    expect(Date.now() - killedAt).toBeLessThan(ttlMs * 4);
    expect(await b.quota.acquire(user, "b2", 2)).toBe(true);
    expect(await b.quota.acquire(user, "b3", 2)).toBe(false);
    await until(() => errors.length > 0, "A's heartbeat to report its failure", { timeoutMs: 5_000 });
  });

  it("a clean close gives back every slot the instance holds", async () => {
    const a = instance().quota;
    const b = instance().quota;
    const user = newUser();
    expect(await a.acquire(user, "a1", 1)).toBe(true);
    expect(await b.acquire(user, "b1", 1)).toBe(false);
    await a.close();
    expect(await b.acquire(user, "b1", 1)).toBe(true);
  });

  it("acquiring a connection it already counts does not take a second slot", async () => {
    const a = instance().quota;
    const user = newUser();
    expect(await a.acquire(user, "a1", 1)).toBe(true);
    expect(await a.acquire(user, "a1", 1)).toBe(true);
    expect(await a.acquire(user, "a2", 1)).toBe(false);
  });

  it("rejects when Redis cannot be reached, so the caller refuses rather than guesses", async () => {
    const a = instance();
    a.redis.disconnect();
    await expect(a.quota.acquire(newUser(), "x", 1)).rejects.toThrow();
  });
});

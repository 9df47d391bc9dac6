import { RedisUserRateLimit } from "@agentwire-chat/cluster";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { until } from "@agentwire-chat/testkit/until";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LocalUserRateLimit } from "../../src/ws/user-rate-limit.js";

const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
const connections: Redis[] = [];

beforeAll(async () => {
  if (!skip) server = await startRedis();
});
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.quit().catch(() => c.disconnect())));
});
afterAll(async () => {
  await server?.stop();
});

/** One "instance": its own Redis connection and limiter. */
function instance(): { limit: RedisUserRateLimit; redis: Redis } {
  const redis = new Redis(server!.url, { maxRetriesPerRequest: 0 });
  connections.push(redis);
  return { limit: new RedisUserRateLimit(redis), redis };
}

let userNo = 0;
const newUser = () => `user-${++userNo}-${Date.now()}`;

async function takeAll(takes: Promise<boolean>[]): Promise<number> {
  return (await Promise.all(takes)).filter(Boolean).length;
}

describe.skipIf(skip)("RedisUserRateLimit", () => {
  it("one bucket per user across instances: the burst is shared, not multiplied", async () => {
    const a = instance().limit;
    const b = instance().limit;
    const user = newUser();
    // One token a minute: nothing refills while the test runs.
    const rate = { perMinute: 1, burst: 5 };
    const taken = await takeAll(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take(user, rate)));
    expect(taken).toBe(5);
    expect(await a.take(user, rate)).toBe(false);
    expect(await b.take(user, rate)).toBe(false);
    // Another user has a bucket of their own.
    expect(await b.take(newUser(), rate)).toBe(true);
  });

  it("refills at the sustained rate", async () => {
    const a = instance().limit;
    const b = instance().limit;
    const user = newUser();
    // 600 a minute: one token every 100 ms.
    const rate = { perMinute: 600, burst: 1 };
    expect(await a.take(user, rate)).toBe(true);
    expect(await b.take(user, rate)).toBe(false);
    await until(() => b.take(user, rate), "the bucket to refill", { timeoutMs: 3_000 });
    expect(await a.take(user, rate)).toBe(false);
  });

  it("keeps a bucket only while it refills", async () => {
    const { limit, redis } = instance();
    const user = newUser();
    await limit.take(user, { perMinute: 60, burst: 2 });
    const ttl = await redis.pttl(limit.key(user));
    // One token short of full: a second to refill, plus a margin.
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
  });
});

describe("LocalUserRateLimit", () => {
  it("counts each user's bucket in memory and refills it with time", async () => {
    let now = 0;
    const limit = new LocalUserRateLimit(() => now);
    const rate = { perMinute: 60, burst: 2 };
    expect(await limit.take("u", rate)).toBe(true);
    expect(await limit.take("u", rate)).toBe(true);
    expect(await limit.take("u", rate)).toBe(false);
    expect(await limit.take("v", rate)).toBe(true);
    now += 1_000;
    expect(await limit.take("u", rate)).toBe(true);
    expect(await limit.take("u", rate)).toBe(false);
  });
});

import { TurnLeases } from "@agentwire-chat/cluster";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { until } from "@agentwire-chat/testkit/until";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const skip = skipMissingService(redisMissing());
let server: TestRedis | undefined;
beforeAll(async () => {
  if (!skip) server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

const LEASE_MS = 300;
const sendStop = async () => {};

describe.skipIf(skip)("TurnLeases", () => {
  it("keeps 2,000 leases alive over many lease periods (one pipelined renewal per beat), and drops them on close", async () => {
    const redis = new Redis(server!.url);
    // Longer leases than the other tests: renewing 2,000 of them must not depend on a quiet machine (at
    // 300 ms this failed under a load average near 5, when a renewal beat came late).
    const leaseMs = 1_000;
    const leases = new TurnLeases(redis, { instanceId: "a", leaseMs, prefix: "tl1:", sendStop });
    const lost: string[] = [];
    const threads = Array.from({ length: 2_000 }, (_, i) => `t${i}`);
    for (const t of threads) expect(await leases.claim(t, `turn-${t}`, () => lost.push(t))).toBe(true);
    // The subject is time itself: every lease must outlive several of its own lengths.
    const until = Date.now() + leaseMs * 4;
    let lowest = Number.POSITIVE_INFINITY;
    while (Date.now() < until) {
      const pipeline = redis.pipeline();
      for (const t of threads) pipeline.pttl(leases.key(t));
      for (const [, ttl] of (await pipeline.exec()) ?? []) lowest = Math.min(lowest, Number(ttl));
    }
    expect(lost).toEqual([]);
    expect(lowest).toBeGreaterThan(0);
    await leases.close();
    expect(await redis.exists(...threads.map((t) => leases.key(t)))).toBe(0);
    await redis.quit();
  });

  it("a lease taken over after it lapsed is reported lost to its turn, and only that one", async () => {
    const redis = new Redis(server!.url);
    const leases = new TurnLeases(redis, { instanceId: "a", leaseMs: LEASE_MS, prefix: "tl2:", sendStop });
    const lost: string[] = [];
    await leases.claim("kept", "turn-kept", () => lost.push("kept"));
    await leases.claim("taken", "turn-taken", () => lost.push("taken"));
    // Another instance holds it now (as after a lapse and a recovery).
    await redis.set(leases.key("taken"), "b other-turn", "PX", 60_000);
    await until(() => lost.length > 0, "a lease to be reported lost", {
      timeoutMs: LEASE_MS * 10,
      everyMs: 20,
    });
    expect(lost).toEqual(["taken"]);
    expect(await redis.get(leases.key("taken"))).toBe("b other-turn");
    expect(await leases.remoteOwner("taken")).toEqual({ instanceId: "b", turnId: "other-turn" });
    expect(await leases.remoteOwner("kept")).toBeUndefined();
    await leases.close();
    await redis.quit();
  });

  it("handOver deletes the turn's lease (not left to lapse), never another's, and tells every instance on its channel", async () => {
    const redis = new Redis(server!.url);
    const listener = new Redis(server!.url);
    const leases = new TurnLeases(redis, { instanceId: "a", leaseMs: 60_000, prefix: "tl4:", sendStop });
    const told: string[] = [];
    listener.on("message", (channel: string, threadId: string) => {
      if (channel === leases.handOverChannel) told.push(threadId);
    });
    await listener.subscribe(leases.handOverChannel);
    await leases.claim("mine", "turn-mine", () => {});
    // Another instance holds this thread (its lease lapsed here and was taken): not ours to delete.
    await redis.set(leases.key("theirs"), "b their-turn", "PX", 60_000);
    await leases.handOver("mine", "turn-mine");
    await leases.handOver("theirs", "turn-old");
    expect(await redis.exists(leases.key("mine"))).toBe(0);
    expect(await redis.get(leases.key("theirs"))).toBe("b their-turn");
    // Only the turn it held is marked handed over (its taker does not count it as a crash's recovery).
    expect(await redis.get(leases.handedOverKey("turn-mine"))).toBe("1");
    expect(await redis.pttl(leases.handedOverKey("turn-mine"))).toBeGreaterThan(60_000 * 3);
    expect(await redis.exists(leases.handedOverKey("turn-old"))).toBe(0);
    await until(() => told.length === 2, "both handovers to be told");
    expect(told).toEqual(["mine", "theirs"]);
    await leases.close();
    await Promise.all([redis.quit(), listener.quit()]);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Cluster, type LocalTurn, startCluster } from "@agentwire-chat/cluster";
import type { Storage, TurnRow } from "@agentwire-chat/storage";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { openTestStorage } from "@agentwire-chat/testkit/test-storage";
import { until } from "@agentwire-chat/testkit/until";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

/**
 * The dead-turn sweep of a real cluster instance on a real Redis and a real SQLite file: a turn
 * stored as running whose lease lapses is taken over as soon as it lapses, not on the sweep's next
 * beat (a quarter lease later).
 */
const skip = skipMissingService(redisMissing());
const silent = { error() {}, warn() {} };
let server: TestRedis | undefined;
let dir: string;
let storage: Storage | undefined;
const clusters: Cluster[] = [];
const connections: Redis[] = [];

beforeAll(async () => {
  if (skip) return;
  server = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "agentwire-sweep-"));
  storage = await openTestStorage(join(dir, "sweep.db"));
});
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.close()));
  await Promise.all(connections.splice(0).map((c) => c.quit()));
});
afterAll(async () => {
  await storage?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip)("the dead-turn sweep", () => {
  it("takes a dead instance's turn over when its lease lapses, long before the sweep's next beat", async () => {
    const { repos } = storage as Storage;
    await repos.users.ensure("ann", Date.now());
    const thread = await repos.threads.create("ann", "t");
    const turn = await repos.turns.start("ann", thread.id, {});
    // The dead instance's last heartbeat left its lease 300 ms.
    const redis = new Redis(server!.url);
    connections.push(redis);
    await redis.set(`aw:lease:${thread.id}`, `dead ${turn.id}`, "PX", 300);

    // A lease of a minute: the sweep beats every 15 s, past the wait below.
    const cluster = await startCluster({
      url: server!.url,
      logger: silent,
      instanceId: `survivor-${Date.now()}`,
      leaseMs: 60_000,
    });
    clusters.push(cluster);
    const recovered: TurnRow[] = [];
    await cluster.serve({
      // This instance runs no turn of its own (the server's TurnRegistry, empty).
      turns: new Map<string, LocalTurn>(),
      repos,
      endLostTurn: async (row) => {
        recovered.push(row);
        return "interrupted";
      },
    });
    // The first sweep (in serve) saw the lease held and set itself for its lapse.
    expect(recovered).toEqual([]);
    await until(() => recovered.length > 0, "the turn taken over", { timeoutMs: 10_000 });
    expect(recovered.map((r) => [r.id, r.status])).toEqual([[turn.id, "running"]]);
    expect(await redis.exists(`aw:lease:${thread.id}`)).toBe(0);
  });
});

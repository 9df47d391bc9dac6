import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { USER_STOP } from "@agentwire-chat/agents";
import { type Cluster, type LocalTurn, startCluster } from "@agentwire-chat/cluster";
import type { Storage } from "@agentwire-chat/storage";
import { redisMissing, startRedis, type TestRedis } from "@agentwire-chat/testkit/redis-server";
import { skipMissingService } from "@agentwire-chat/testkit/skip-missing-service";
import { openTestStorage } from "@agentwire-chat/testkit/test-storage";
import { until } from "@agentwire-chat/testkit/until";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseClusterCommand } from "../src/cluster-command.js";

/**
 * The command bus between two cluster instances on a real Redis: a stop sent through one instance's
 * leases reaches the instance that runs the turn, and only the turn it names.
 */
const skip = skipMissingService(redisMissing());
const silent = { error() {}, warn() {} };
let server: TestRedis | undefined;
let dir: string;
let storage: Storage | undefined;
const clusters: Cluster[] = [];

beforeAll(async () => {
  if (skip) return;
  server = await startRedis();
  dir = mkdtempSync(join(tmpdir(), "agentwire-bus-"));
  storage = await openTestStorage(join(dir, "bus.db"));
});
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await storage?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const runningTurn = (turnId: string): LocalTurn => ({
  turnId,
  active: true,
  status: "running",
  abort: new AbortController(),
});

async function instance(name: string): Promise<Cluster> {
  const cluster = await startCluster({
    url: server!.url,
    logger: silent,
    instanceId: `${name}-${Date.now()}`,
  });
  clusters.push(cluster);
  return cluster;
}

describe("parseClusterCommand", () => {
  it("reads the commands of the bus and nothing else", () => {
    expect(parseClusterCommand(JSON.stringify({ type: "stop", threadId: "t", turnId: "u" }))).toEqual({
      type: "stop",
      threadId: "t",
      turnId: "u",
    });
    expect(parseClusterCommand(JSON.stringify({ type: "stop", threadId: "t" }))).toBeUndefined();
    expect(parseClusterCommand(JSON.stringify({ type: "reboot" }))).toBeUndefined();
    expect(parseClusterCommand("not json")).toBeUndefined();
  });
});

describe.skipIf(skip)("the command bus", () => {
  it("stops the named turn on the instance that runs it, and leaves a stale turn id alone", async () => {
    const owner = await instance("owner");
    const other = await instance("other");
    const turn = runningTurn("turn-1");
    const bystander = runningTurn("turn-2");
    const turns = new Map<string, LocalTurn>([
      ["thread-1", turn],
      ["thread-2", bystander],
    ]);
    const { repos } = storage as Storage;
    const endLostTurn = async () => "interrupted" as const;
    await owner.serve({ turns, repos, endLostTurn });
    await other.serve({ turns: new Map(), repos, endLostTurn });

    // A stop naming a turn the thread no longer runs (it ended, another began) changes nothing.
    await other.leases.stopRemote({ instanceId: owner.instanceId, turnId: "turn-0" }, "thread-1");
    await other.leases.stopRemote({ instanceId: owner.instanceId, turnId: "turn-2" }, "thread-2");
    await until(() => bystander.abort.signal.aborted, "the second stop delivered");
    expect(turn.abort.signal.aborted).toBe(false);

    await other.leases.stopRemote({ instanceId: owner.instanceId, turnId: "turn-1" }, "thread-1");
    await until(() => turn.abort.signal.aborted, "the stop delivered");
    expect(turn.abort.signal.reason).toBe(USER_STOP);
  });
});

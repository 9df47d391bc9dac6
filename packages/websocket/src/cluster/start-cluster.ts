import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { Redis } from "ioredis";
import type { Repositories } from "../db/repositories.js";
import { recoverTurn } from "../turns/recover-turns.js";
import type { TurnOwner } from "../turns/turn-coordination.js";
import type { TurnRegistry } from "../turns/turn-registry.js";
import { RedisFrameLog } from "./redis-frame-log.js";
import { TurnLeases } from "./turn-leases.js";

export interface ClusterOptions {
  url: string;
  logger: FastifyBaseLogger;
  /** Defaults to a random id per process. */
  instanceId?: string;
  /** How long a dead instance's turns stay running before another instance ends them. */
  leaseMs?: number;
  prefix?: string;
}

/** This instance's part of a cluster on Redis: the shared frame log, turn leases, the command bus. */
export interface Cluster {
  readonly instanceId: string;
  readonly frames: RedisFrameLog;
  readonly leases: TurnLeases;
  /** Stops this instance's running turns on request of another instance, and ends dead instances' turns. */
  serve(registry: TurnRegistry, repos: Repositories): Promise<void>;
  /** True while Redis answers. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

type Command = { type: "stop"; threadId: string; turnId: string };

/** Connects to Redis (commands, the blocking reader, pub/sub) and builds this instance's cluster parts. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const instanceId = options.instanceId ?? randomUUID();
  const prefix = options.prefix ?? "aw:";
  const { logger } = options;
  const connect = () => new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  const redis = connect();
  const reader = connect();
  const bus = connect();
  await Promise.all([redis.connect(), reader.connect(), bus.connect()]);
  const channel = (id: string) => `${prefix}cmd:${id}`;
  const frames = new RedisFrameLog(redis, reader, {
    prefix,
    onError: (err, threadId) =>
      logger.error({ err, thread_id: threadId }, "frames could not be logged; not sent"),
  });
  const leases = new TurnLeases(redis, {
    instanceId,
    prefix,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    sendStop: async (owner: TurnOwner, threadId: string) => {
      const command: Command = { type: "stop", threadId, turnId: owner.turnId };
      await redis.publish(channel(owner.instanceId), JSON.stringify(command));
    },
    onError: (err) => logger.warn({ err }, "turn lease heartbeat failed"),
  });
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let sweeping = false;

  return {
    instanceId,
    frames,
    leases,
    async serve(registry, repos) {
      bus.on("message", (_channel: string, text: string) => {
        const command = parseCommand(text);
        const turn = command && registry.get(command.threadId);
        if (turn?.active && turn.turnId === command?.turnId && turn.status === "running")
          turn.abort.abort("stop");
      });
      await bus.subscribe(channel(instanceId));
      const sweep = async () => {
        if (sweeping) return;
        sweeping = true;
        try {
          await endDeadTurns(registry, repos);
        } catch (err) {
          logger.warn({ err }, "could not check for turns of dead instances");
        } finally {
          sweeping = false;
        }
      };
      sweeper = setInterval(() => void sweep(), Math.max(50, Math.floor(leases.lease / 2)));
      sweeper.unref();
      await sweep();
    },
    isReady: async () => (await redis.ping()) === "PONG",
    async close() {
      if (sweeper) clearInterval(sweeper);
      await frames.flush();
      frames.close();
      await leases.close();
      await Promise.all([redis, reader, bus].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };

  /**
   * A turn stored as running whose lease is gone ran on an instance that died (a live one renews
   * it): one surviving instance, chosen by a lock, ends it from the shared log like a restart would.
   */
  async function endDeadTurns(registry: TurnRegistry, repos: Repositories): Promise<void> {
    for (const row of await repos.turns.listRunning()) {
      const local = registry.get(row.threadId);
      if (local?.active && local.turnId === row.id) continue;
      if ((await redis.exists(leases.key(row.threadId))) === 1) continue;
      const lock = await redis.set(`${prefix}recover:${row.id}`, instanceId, "PX", leases.lease * 4, "NX");
      if (lock !== "OK") continue;
      // It may have ended between the list and the lock.
      const fresh = await repos.turns.get(row.userId, row.id);
      if (fresh?.status !== "running") continue;
      logger.warn(
        { thread_id: row.threadId, turn_id: row.id },
        "turn of a dead instance ended as interrupted",
      );
      await recoverTurn(frames, repos, logger, fresh);
    }
  }
}

function parseCommand(text: string): Command | undefined {
  try {
    const value = JSON.parse(text) as Partial<Command>;
    if (value.type === "stop" && typeof value.threadId === "string" && typeof value.turnId === "string")
      return value as Command;
  } catch {
    // Not ours: ignored.
  }
  return undefined;
}

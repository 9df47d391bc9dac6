import { randomUUID } from "node:crypto";
import { abortTurn, USER_STOP } from "@agentwire-chat/agents";
import type {
  Repositories,
  RunningTurnKey,
  StorageLogger,
  StoredCheckpoint,
  TurnRow,
} from "@agentwire-chat/storage";
import { logFrameErrors } from "@agentwire-chat/storage";
import { Redis } from "ioredis";
import { type ClusterCommand, parseClusterCommand } from "./cluster-command.js";
import { RedisConnectionQuota } from "./redis-connection-quota.js";
import { RedisFrameLog } from "./redis-frame-log.js";
import { RedisToolCallRouting, type RoutedToolProxy } from "./redis-tool-call-routing.js";
import { RedisUserRateLimit } from "./redis-user-rate-limit.js";
import { TurnLeases, type TurnOwner } from "./turn-leases.js";

export interface ClusterOptions {
  url: string;
  logger: StorageLogger;
  /** Defaults to a random id per process. */
  instanceId?: string;
  /** How long a dead instance's turns stay running before another instance takes them over. */
  leaseMs?: number;
  prefix?: string;
  /**
   * Stores turns' checkpoints in the database (the storage's `writeCheckpoints`), after their frames
   * are in Redis. Absent: turns keep no checkpoint, and a dead instance's turns end `interrupted`.
   */
  storeCheckpoints?: (checkpoints: readonly StoredCheckpoint[]) => Promise<void>;
}

/** Redis PTTL of a key that does not exist. */
const NO_KEY = -2;

/** How long after a lease's TTL ends a sweep looks at it (Redis expires a key at its TTL, give or take a ms). */
const LAPSE_MARGIN_MS = 20;

/** Dead turns taken over at once (each a few round trips). */
const TAKEOVERS_AT_ONCE = 32;

/** A turn this instance runs (the server's `ActiveTurn`): what a stop command and the dead-turn sweep look at. */
export type LocalTurn = {
  readonly turnId: string;
  readonly active: boolean;
  readonly status: string;
  readonly abort: AbortController;
};

/** What `serve` needs of the server it runs in. */
export interface ClusterServeOptions {
  /** The turns of this instance by thread (the server's `TurnRegistry`). */
  turns: { get(threadId: string): LocalTurn | undefined };
  repos: Repositories;
  /**
   * Takes over a turn stored as running whose instance died, as a restart takes over its own (the
   * server's `recoverOrEndTurn`): continued here from its checkpoint (the row carries the freshest
   * one, read from Redis), or ended from the shared log; says which.
   */
  endLostTurn: (turn: TurnRow, cause: { handedOver: boolean }) => Promise<"continued" | "interrupted">;
  /** The client tool proxy: answers routed here resolve in it, and its own are routed from here. */
  uiTools?: RoutedToolProxy;
}

const DROP_IF_MINE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/** This instance's part of a cluster on Redis: the shared frame log, turn leases, the command bus. */
export interface Cluster {
  readonly instanceId: string;
  readonly frames: RedisFrameLog;
  readonly leases: TurnLeases;
  /** The per-user connection cap across instances (`createServer({ connectionQuota })`); entries lapse with the lease. */
  readonly connectionQuota: RedisConnectionQuota;
  /** The per-user turn limit across instances (`createServer({ userRateLimit })`). */
  readonly userRateLimit: RedisUserRateLimit;
  /** Routes client tool answers to the instance whose turn waits for them. */
  readonly toolCalls: RedisToolCallRouting;
  /**
   * Stops this instance's running turns on request of another instance, resolves client tool answers
   * routed here (with `uiTools`, whose answers it then routes too), and takes over dead instances' turns.
   */
  serve(options: ClusterServeOptions): Promise<void>;
  /**
   * Stops taking over other instances' turns (a shutdown: what this instance hands over must go to
   * another one); `close` does it too.
   */
  stopSweeping(): void;
  /** True while Redis answers. */
  isReady(): Promise<boolean>;
  /** Each Redis connection's state and the threads followed on the stream (metrics). */
  stats(): ClusterStats;
  close(): Promise<void>;
}

/** Each Redis connection's state (by name) and the threads followed on the stream. */
export type ClusterStats = { connections: Record<string, boolean>; followedThreads: number };

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
  const send = (id: string, command: ClusterCommand) => redis.publish(channel(id), JSON.stringify(command));
  const frames = new RedisFrameLog(redis, reader, {
    prefix,
    onError: logFrameErrors(logger),
    ...(options.storeCheckpoints && { storeCheckpoints: options.storeCheckpoints }),
  });
  const leases = new TurnLeases(redis, {
    instanceId,
    prefix,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    sendStop: async (owner: TurnOwner, threadId: string) => {
      await send(owner.instanceId, { type: "stop", threadId, turnId: owner.turnId });
    },
    onError: (err) => logger.warn({ err }, "turn lease heartbeat failed"),
  });
  const connectionQuota = new RedisConnectionQuota(redis, {
    prefix,
    ttlMs: leases.lease,
    onError: (err) => logger.warn({ err }, "connection count heartbeat failed"),
  });
  const userRateLimit = new RedisUserRateLimit(redis, { prefix });
  const toolCalls = new RedisToolCallRouting(redis, {
    instanceId,
    prefix,
    ownerOf: (threadId) => leases.remoteOwner(threadId),
    send,
    onError: (err) => logger.warn({ err }, "client tool call routing failed"),
  });
  let sweeper: ReturnType<typeof setInterval> | undefined;
  // A sweep set for when the soonest lease it saw lapses (a dead instance's all lapse within its heartbeat).
  let wake: ReturnType<typeof setTimeout> | undefined;
  // Dead turns found and not yet taken over, oldest first, and the ids queued or being taken over:
  // a sweep lists and queues, the workers take over, so a turn whose lease lapses while hundreds
  // are being taken over is queued by the next sweep instead of waiting for all of them.
  const takeovers: RunningTurnKey[] = [];
  const takingOver = new Set<string>();
  let takeoverWorkers = 0;
  let sweeping = false;
  let sweepAgain = false;
  let sweepStopped = false;
  const stopSweeping = () => {
    sweepStopped = true;
    if (sweeper) clearInterval(sweeper);
    if (wake) clearTimeout(wake);
  };

  return {
    instanceId,
    frames,
    leases,
    connectionQuota,
    userRateLimit,
    toolCalls,
    async serve(host) {
      const { turns, uiTools } = host;
      uiTools?.routeVia(toolCalls);
      bus.on("message", (from: string, text: string) => {
        // Another instance handed a turn over: take it now, not on the next beat.
        if (from === leases.handOverChannel) return void sweep();
        const command = parseClusterCommand(text);
        switch (command?.type) {
          case "stop": {
            const turn = turns.get(command.threadId);
            if (turn?.active && turn.turnId === command.turnId && turn.status === "running")
              abortTurn(turn.abort, USER_STOP);
            return;
          }
          case "tool_result":
            toolCalls.handle(command, uiTools).catch((err: unknown) => {
              logger.warn({ err, thread_id: command.threadId }, "could not reply to a routed tool result");
            });
            return;
          case "tool_result_reply":
            toolCalls.settle(command);
            return;
        }
      });
      await bus.subscribe(channel(instanceId), leases.handOverChannel);
      // One sweep at a time; a nudge during one runs another after it (it may have listed too early).
      const sweep = async () => {
        if (sweepStopped) return;
        if (sweeping) {
          sweepAgain = true;
          return;
        }
        sweeping = true;
        try {
          let soonest: number;
          do {
            sweepAgain = false;
            soonest = await takeOverDeadTurns(host);
          } while (sweepAgain && !sweepStopped);
          wakeAfter(soonest);
        } catch (err) {
          logger.warn({ err }, "could not check for turns of dead instances");
        } finally {
          sweeping = false;
        }
      };
      const sweepEvery = Math.max(50, Math.floor(leases.lease / 4));
      // A lease that would lapse before the next beat is looked at again just after it lapses: a dead
      // instance's turns are found at once, not up to a quarter lease later. A live instance renews
      // its leases at a third of the lease, so its soonest one is never that close.
      const wakeAfter = (ttl: number) => {
        if (sweepStopped || ttl >= sweepEvery) return;
        if (wake) clearTimeout(wake);
        wake = setTimeout(() => void sweep(), ttl + LAPSE_MARGIN_MS);
        wake.unref();
      };
      // Every quarter lease besides: a turn stored as running with no lease at all (its instance died
      // before claiming one) is found within a quarter lease.
      sweeper = setInterval(() => void sweep(), sweepEvery);
      sweeper.unref();
      await sweep();
    },
    stopSweeping,
    isReady: async () => (await redis.ping()) === "PONG",
    stats: () => ({
      connections: {
        commands: redis.status === "ready",
        reader: reader.status === "ready",
        bus: bus.status === "ready",
      },
      followedThreads: frames.followedThreads(),
    }),
    async close() {
      stopSweeping();
      toolCalls.close();
      await connectionQuota.close();
      await frames.flush();
      await frames.checkpointsStored();
      frames.close();
      await leases.close();
      await Promise.all([redis, reader, bus].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };

  /**
   * A turn stored as running whose lease is gone ran on an instance that died (a live one renews
   * it): one surviving instance, chosen by a lock, takes it over like a restart would (continues or
   * ends it). Returns the least time (ms) any other instance's lease it saw has left (Infinity: none).
   */
  async function takeOverDeadTurns(host: ClusterServeOptions): Promise<number> {
    // Keys only: most running turns are alive, and their checkpoints can be large. A turn taken over
    // reads its whole row under the takeover's lock.
    const rows = (await host.repos.turns.listRunningKeys()).filter((row) => {
      if (takingOver.has(row.id)) return false;
      const local = host.turns.get(row.threadId);
      return !(local?.active && local.turnId === row.id);
    });
    if (rows.length === 0) return Number.POSITIVE_INFINITY;
    // One round trip for every lease, not one per turn: a busy cluster has many running turns.
    const pipeline = redis.pipeline();
    for (const row of rows) pipeline.pttl(leases.key(row.threadId));
    const ttls = (await pipeline.exec()) ?? [];
    let soonest = Number.POSITIVE_INFINITY;
    for (const [i, row] of rows.entries()) {
      const [error, ttl] = ttls[i] ?? [];
      if (error != null || typeof ttl !== "number") continue;
      // -2: no lease (-1, a lease without expiry, is held for good).
      if (ttl !== NO_KEY) {
        if (ttl >= 0) soonest = Math.min(soonest, ttl);
        continue;
      }
      takingOver.add(row.id);
      takeovers.push(row);
    }
    // Many at a time: a takeover is mostly round trips (lock, row, checkpoint, lease, the log's
    // rebuild, the resumed frame's commit), so a thousand turns of a dead instance continue in seconds.
    while (takeoverWorkers < TAKEOVERS_AT_ONCE && takeovers.length > 0) {
      takeoverWorkers++;
      void takeOverQueued(host).finally(() => {
        takeoverWorkers--;
      });
    }
    return soonest;
  }

  /** One worker: takes queued dead turns over one after another until none is left. */
  async function takeOverQueued(host: ClusterServeOptions): Promise<void> {
    for (let row = takeovers.shift(); row && !sweepStopped; row = takeovers.shift()) {
      try {
        await takeOverDeadTurn(host, row);
      } catch (err) {
        // The next sweep finds it again if it still runs without a lease.
        logger.warn(
          { err, thread_id: row.threadId, turn_id: row.id },
          "could not take over a dead instance's turn",
        );
      } finally {
        takingOver.delete(row.id);
      }
    }
  }

  async function takeOverDeadTurn(host: ClusterServeOptions, row: RunningTurnKey): Promise<void> {
    const lockKey = `${prefix}recover:${row.id}`;
    const handedKey = leases.handedOverKey(row.id);
    // One round trip: the lock, then (under it, in order) whether the turn is leased again, its
    // checkpoint, and whether its instance handed it over. A turn continued by another instance
    // meanwhile holds its lease again.
    const [locked, leased, saved, handed] =
      (await redis
        .pipeline()
        .set(lockKey, instanceId, "PX", leases.lease * 4, "NX")
        .exists(leases.key(row.threadId))
        .get(frames.checkpointKey(row.id))
        .get(handedKey)
        .exec()) ?? [];
    if (locked?.[1] !== "OK") return;
    let taken = false;
    try {
      const failed = leased?.[0] ?? saved?.[0] ?? handed?.[0];
      if (failed) throw failed;
      if (leased?.[1] !== 0) return;
      // Read after the lease: a turn that ended meanwhile was stored so before its lease was dropped.
      const fresh = await host.repos.turns.get(row.userId, row.id);
      if (fresh?.status !== "running") return;
      const json = saved?.[1];
      const checkpoint: unknown = typeof json === "string" ? JSON.parse(json) : undefined;
      // A rolling deploy's handover is not a crash: TURN_MAX_RECOVERIES bounds crashes alone.
      const handedOver = handed?.[1] === "1";
      const outcome = await host.endLostTurn(checkpoint === undefined ? fresh : { ...fresh, checkpoint }, {
        handedOver,
      });
      taken = handedOver;
      logger.warn(
        { thread_id: row.threadId, turn_id: row.id },
        outcome === "continued"
          ? "turn of a dead instance continues here"
          : "turn of a dead instance ended as interrupted",
      );
    } finally {
      // Done: the turn ended, or runs here under its lease. A later handover of the same turn (the
      // next instance of a rolling deploy) must not wait for this lock to lapse.
      const done = redis.pipeline().eval(DROP_IF_MINE, 1, lockKey, instanceId);
      // The mark is used up: should the turn's new instance crash, that one counts.
      if (taken) done.del(handedKey);
      await done.exec().catch(() => undefined);
    }
  }
}

import type { Redis } from "ioredis";

/** Where a thread's turn runs when another instance runs it (the turn lifecycle's `TurnOwner`). */
export type TurnOwner = { instanceId: string; turnId: string };

export interface TurnLeasesOptions {
  instanceId: string;
  /** A lease not renewed for this long is gone: its instance is taken for dead. */
  leaseMs?: number;
  prefix?: string;
  /** Asks another instance to stop a turn (the command bus). */
  sendStop: (owner: TurnOwner, threadId: string) => Promise<void>;
  onError?: (error: unknown) => void;
}

// Renew or drop a lease only while it is still ours: a lease that expired and was taken is not touched.
const RENEW = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) else return 0 end`;
const DROP = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;
// Drops the lease only while it is ours, and then marks the turn handed over (for the instance that takes it).
const HAND_OVER = `if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("SET", KEYS[2], "1", "PX", ARGV[2]) return redis.call("DEL", KEYS[1]) else return 0 end`;

/**
 * Turn ownership across instances: one Redis key per thread, `<instance> <turn>`, set only if absent
 * and renewed by a heartbeat at a third of the lease. A turn whose lease cannot be renewed is told
 * (`onLost`), so it stops rather than run beside the instance that recovered it. The server's turn
 * lifecycle takes it as its `TurnCoordination` (checked where the server is put together).
 */
export class TurnLeases {
  private readonly held = new Map<string, { value: string; onLost: () => void }>();
  private readonly leaseMs: number;
  private readonly prefix: string;
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private renewing = false;

  constructor(
    private readonly redis: Redis,
    private readonly options: TurnLeasesOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
    this.prefix = options.prefix ?? "aw:";
    this.heartbeat = setInterval(() => void this.renewAll(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
  }

  /** The lease length (the time within which a dead instance's turns are recovered). */
  get lease(): number {
    return this.leaseMs;
  }

  /** The Redis key of a thread's lease. */
  key(threadId: string): string {
    return `${this.prefix}lease:${threadId}`;
  }

  /** Takes the thread's lease for the turn; false when another instance holds it. */
  async claim(threadId: string, turnId: string, onLost: () => void): Promise<boolean> {
    const value = `${this.options.instanceId} ${turnId}`;
    const set = await this.redis.set(this.key(threadId), value, "PX", this.leaseMs, "NX");
    if (set !== "OK") return (await this.redis.get(this.key(threadId))) === value;
    this.held.set(threadId, { value, onLost });
    return true;
  }

  /** Drops the lease if this turn still holds it. */
  async release(threadId: string, turnId: string): Promise<void> {
    await this.redis.eval(DROP, 1, this.key(threadId), this.letGo(threadId, turnId));
  }

  /** Stops renewing the turn's lease here; returns the lease's value, to drop it only while it is ours. */
  private letGo(threadId: string, turnId: string): string {
    const value = `${this.options.instanceId} ${turnId}`;
    if (this.held.get(threadId)?.value === value) this.held.delete(threadId);
    return value;
  }

  /** The channel on which an instance says it handed a turn over (every instance sweeps on it). */
  get handOverChannel(): string {
    return `${this.prefix}handover`;
  }

  /**
   * The Redis key that marks a turn as handed over, set with the lease's drop: the instance that
   * continues it does not count a rolling deploy as one of the turn's recoveries from a crash.
   */
  handedOverKey(turnId: string): string {
    return `${this.prefix}handed:${turnId}`;
  }

  /**
   * Drops the lease of a turn this instance leaves running (a rolling deploy), marking the turn handed
   * over (for four leases: the sweep that takes it comes well within), and tells every instance, so one
   * continues it now rather than on its next sweep.
   */
  async handOver(threadId: string, turnId: string): Promise<void> {
    const value = this.letGo(threadId, turnId);
    await this.redis.eval(
      HAND_OVER,
      2,
      this.key(threadId),
      this.handedOverKey(turnId),
      value,
      this.leaseMs * 4,
    );
    await this.redis.publish(this.handOverChannel, threadId);
  }

  /** The instance holding the thread's lease, when it is another one. */
  async remoteOwner(threadId: string): Promise<TurnOwner | undefined> {
    const value = await this.redis.get(this.key(threadId));
    if (!value) return undefined;
    const [instanceId = "", turnId = ""] = value.split(" ");
    return instanceId === this.options.instanceId ? undefined : { instanceId, turnId };
  }

  /** Asks the owning instance, over the command bus, to stop its turn. */
  stopRemote(owner: TurnOwner, threadId: string): Promise<void> {
    return this.options.sendStop(owner, threadId);
  }

  /** Stops the heartbeat and drops every lease this instance holds (a clean shutdown). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await Promise.all(
      [...this.held].map(([threadId, { value }]) =>
        this.redis.eval(DROP, 1, this.key(threadId), value).catch(() => undefined),
      ),
    );
    this.held.clear();
  }

  /**
   * One heartbeat: every held lease renewed in one pipelined round trip (one EVAL each, awaited in turn,
   * took longer than the lease with a thousand turns, and leases of live turns lapsed), and no beat
   * while the previous one is still out.
   */
  private async renewAll(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    try {
      const leases = [...this.held];
      const pipeline = this.redis.pipeline();
      for (const [threadId, lease] of leases)
        pipeline.eval(RENEW, 1, this.key(threadId), lease.value, this.leaseMs);
      const results = (await pipeline.exec()) ?? [];
      for (const [i, [threadId, lease]] of leases.entries()) {
        const [error, renewed] = results[i] ?? [new Error("no reply"), 0];
        if (error) {
          // Redis unreachable: the lease may lapse; the next beat tries again.
          this.options.onError?.(error);
          continue;
        }
        // Released (or claimed anew) while the beat was out: not this beat's to judge.
        if (renewed === 1 || this.held.get(threadId) !== lease) continue;
        this.held.delete(threadId);
        lease.onLost();
      }
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      this.renewing = false;
    }
  }
}

import type {
  FrameLog,
  FrameSubscriber,
  LoggedFrame,
  MemoryFrameLogOptions,
  StoredCheckpoint,
} from "@agentwire-chat/storage";
import { bytesOf, dedupe, gated, MemoryFrameLog, type Pending, ThreadLog } from "@agentwire-chat/storage";
import type { Redis } from "ioredis";

export interface RedisFrameLogOptions extends MemoryFrameLogOptions {
  /** Key prefix of the streams (one per thread): `<prefix>frames:<threadId>`. */
  prefix?: string;
  /** Approximate cap on a thread's stream (older entries trimmed); a turn longer than this loses its start. */
  maxLength?: number;
  /** A thread's stream expires this long after its last commit. */
  ttlMs?: number;
  /**
   * Stores turns' checkpoints (the database's `turns.checkpoint`); called only after the frames
   * before them are in Redis. Absent: checkpoints are dropped, and a dead instance's turns end `interrupted`.
   */
  storeCheckpoints?: (checkpoints: readonly StoredCheckpoint[]) => Promise<void>;
}

/**
 * How long Redis keeps a turn's checkpoint: it only bridges the moment until the database's copy,
 * written right after, has it too (the recovering instance reads Redis first, then the database).
 */
const CHECKPOINT_TTL_MS = 10 * 60_000;

const DROP_IF_SAME = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/** A subscriber following a thread whose turn runs on another instance, through XREAD. */
type Follower = { subscriber: FrameSubscriber; lastSeq: number };

/**
 * The shared frame log: one Redis stream per thread, entry id `<seq>-0`, so the stream allocates
 * nothing and an instance that lost its lease cannot write a seq twice (XADD refuses an id not above
 * the last). The instance running a turn appends in memory and commits every thread's pending frames
 * in one pipelined round trip per event-loop turn, delivering to its own sockets only after Redis
 * acknowledged them. Sockets on other instances follow the stream with one blocking XREAD per
 * instance; the entry that ends a turn carries `e`, which ends their following.
 */
export class RedisFrameLog extends MemoryFrameLog implements FrameLog {
  /** Threads whose last appended frame ends the turn (endSubscriptions): its entry gets `e`. */
  private readonly endSeq = new Map<string, number>();
  private readonly followers = new Map<string, Map<string, Follower>>();
  private readonly prefix: string;
  private readonly maxLength: number;
  private readonly ttlMs: number;
  private readerId: number | undefined;
  private reading: Promise<void> | undefined;
  /** Checkpoints whose frames are in Redis, waiting for the database, newest per turn. */
  private readonly unstored = new Map<string, StoredCheckpoint>();
  private storing: Promise<void> | undefined;
  /**
   * Checkpoint hand-overs so far, how many of them the database has taken (stored or failed), and the
   * waits for a number: a wait is for what was handed over before it, not for a store loop that
   * never ends while turns keep checkpointing.
   */
  private storesQueued = 0;
  private storesDone = 0;
  private storeWaiters: { after: number; resolve: () => void }[] = [];

  /** `redis` runs commands; `reader` is a connection of its own for the blocking XREAD. */
  constructor(
    private readonly redis: Redis,
    private readonly reader: Redis,
    private readonly options: RedisFrameLogOptions = {},
  ) {
    super(options);
    this.prefix = options.prefix ?? "aw:";
    this.maxLength = options.maxLength ?? 50_000;
    this.ttlMs = options.ttlMs ?? 24 * 3_600_000;
  }

  checkpoint(threadId: string, turnId: string, json: string): void {
    if (this.closed || !this.options.storeCheckpoints) return;
    const thread = this.threads.get(threadId);
    if (!thread) throw new Error(`frame log: thread ${threadId} was not claimed before a checkpoint`);
    this.memory.checkpoint(thread, turnId, json);
    this.schedule();
  }

  /**
   * Resolves once the checkpoints committed so far (in Redis with their frames: `flush` first) are in
   * the database too, or failed there. `flush` does not wait for it: a turn's checkpoint is read
   * from Redis first, and a resume or a takeover must not queue behind the database's copy.
   */
  async checkpointsStored(): Promise<void> {
    const after = this.storesQueued;
    if (this.storesDone >= after) return;
    await new Promise<void>((resolve) => this.storeWaiters.push({ after, resolve }));
  }

  async claim(threadId: string, options: { turn?: boolean } = {}): Promise<void> {
    const last = (await this.redis.xrevrange(this.key(threadId), "+", "-", "COUNT", 1))[0];
    const seq = last ? seqOf(last[0]) : 0;
    // The turn whose entries the stream holds: a different one appending next trims them.
    const storedTurnId = last ? field(last[1], "t") : undefined;
    this.endSeq.delete(threadId);
    let thread = this.threads.get(threadId);
    if (!thread) {
      thread = new ThreadLog(threadId, seq, seq, this.now());
      thread.storedTurnId = storedTurnId;
      thread.turnOpen = options.turn !== false;
      this.threads.set(threadId, thread);
      return;
    }
    thread.touchedAt = this.now();
    if (options.turn !== false) thread.turnOpen = true;
    if (thread.pending.length === 0) thread.storedTurnId = storedTurnId;
    // Another instance may have run turns here since; frames this process still holds come after.
    if (thread.pending.length === 0 && seq > thread.lastSeq) {
      thread.lastSeq = seq;
      thread.committedSeq = seq;
      thread.recent = [];
      thread.recentTurnId = undefined;
    }
  }

  handOff(threadId: string): void {
    const thread = this.threads.get(threadId);
    if (!thread) return;
    thread.turnOpen = false;
    // They hold every committed frame; the rest (held ones too) reach them through the stream.
    for (const subscriber of thread.subscribers.values())
      this.follow(threadId, dedupe(subscriber, thread.committedSeq), thread.committedSeq);
    thread.subscribers.clear();
    this.memory.touch(thread);
  }

  async readAfter(threadId: string, afterSeq: number): Promise<LoggedFrame[]> {
    return (await this.range(threadId, afterSeq)).frames;
  }

  async readTurn(threadId: string, turnId: string): Promise<LoggedFrame[]> {
    const entries = await this.redis.xrange(this.key(threadId), "-", "+");
    const out: LoggedFrame[] = [];
    for (const [id, fields] of entries) if (field(fields, "t") === turnId) out.push(frameOf(id, fields));
    return out;
  }

  async resume(
    threadId: string,
    afterSeq: number,
    subscriber: FrameSubscriber,
    follow: boolean,
  ): Promise<{ replayed: number; lastSeq: number }> {
    if (!follow) {
      const { frames } = await this.range(threadId, afterSeq);
      if (frames.length > 0) subscriber.deliver(frames);
      return { replayed: frames.length, lastSeq: frames.at(-1)?.seq ?? afterSeq };
    }
    // Subscribed before the read, here and through the stream (the turn may run here, elsewhere, or
    // move on an answer); the seq floor passes each frame once whichever path brings it first.
    // Live frames committed during the read wait behind the replay (see gated).
    const gate = gated(subscriber, afterSeq);
    this.threads.get(threadId)?.follow(gate);
    const { frames, ended } = await this.range(threadId, afterSeq);
    gate.open(frames);
    if (!ended) this.follow(threadId, gate, gate.seq());
    else this.threads.get(threadId)?.subscribers.delete(subscriber.id);
    return { replayed: frames.length, lastSeq: gate.seq() };
  }

  subscribe(threadId: string, subscriber: FrameSubscriber): void {
    // A socket already following through the stream stays on it: no frame twice, none skipped.
    if (this.followers.get(threadId)?.has(subscriber.id)) return;
    const thread = this.threads.get(threadId);
    if (thread) thread.follow(subscriber);
  }

  unsubscribe(threadId: string, subscriberId: string): void {
    this.memory.unsubscribe(threadId, subscriberId);
    this.unfollow(threadId, subscriberId);
  }

  unsubscribeEverywhere(subscriberId: string): void {
    this.memory.unsubscribeEverywhere(subscriberId);
    for (const threadId of [...this.followers.keys()]) this.unfollow(threadId, subscriberId);
  }

  endSubscriptions(threadId: string): void {
    const thread = this.threads.get(threadId);
    if (!thread) return;
    this.endSeq.set(threadId, thread.lastSeq);
    this.memory.endSubscriptions(threadId);
  }

  /** Threads followed through the stream for local sockets (a gauge). */
  followedThreads(): number {
    return this.followers.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.memory.stopSweeping();
    // A commit already queued or running takes what is pending: never two at once.
    if (!this.committing && !this.scheduled) void this.commit();
    if (this.readerId !== undefined) void this.redis.client("UNBLOCK", this.readerId).catch(() => {});
  }

  private key(threadId: string): string {
    return `${this.prefix}frames:${threadId}`;
  }

  /** The Redis key of a turn's checkpoint (a takeover reads it in the round trip that takes its lock). */
  checkpointKey(turnId: string): string {
    return `${this.prefix}checkpoint:${turnId}`;
  }

  /**
   * The turn's latest checkpoint as stored with its frames (parsed JSON), or undefined: fresher than
   * the database's copy, which is written after the frames are.
   */
  async readCheckpoint(turnId: string): Promise<unknown> {
    const json = await this.redis.get(this.checkpointKey(turnId));
    return json === null ? undefined : JSON.parse(json);
  }

  /** One group commit: every committable frame of every thread in one pipeline, then delivery. */
  protected override async commit(): Promise<void> {
    this.scheduled = false;
    this.committing = true;
    const ready: [ThreadLog, Pending[], number][] = [];
    const pipeline = this.redis.pipeline();
    for (const [thread, frames] of this.memory.take()) {
      const from = pipeline.length;
      this.write(pipeline, thread, frames);
      ready.push([thread, frames, from]);
    }
    const framesEnd = pipeline.length;
    const checkpoints = this.memory.takeCheckpoints();
    // After the frames they follow, in the same round trip: Redis runs a pipeline in order, so a
    // stored checkpoint's frames are stored too (the database copy follows once they are).
    for (const c of checkpoints) pipeline.set(this.checkpointKey(c.turnId), c.json, "PX", CHECKPOINT_TTL_MS);
    const failed = new Set<string>();
    if (pipeline.length > 0) {
      let results: [Error | null, unknown][] = [];
      try {
        results = (await pipeline.exec()) ?? [];
      } catch (error) {
        for (const [thread] of ready) this.onError(error, thread.threadId);
        results = [];
      }
      for (let i = 0; i < ready.length; i++) {
        const [thread, frames, from] = ready[i] as [ThreadLog, Pending[], number];
        const to = ready[i + 1]?.[2] ?? framesEnd;
        const error = results.length === 0 ? new Error("no reply") : firstError(results, from, to);
        // Delivered or dropped, they leave memory: Redis keeps no frames here for replay.
        this.memory.freed(bytesOf(frames));
        // Never sent, so no client holds them; the turn hears of it through onError.
        if (error) {
          failed.add(thread.threadId);
          this.onError(error, thread.threadId);
        } else this.deliver(thread, frames);
      }
    }
    // A checkpoint whose frames did not reach Redis is dropped, there too unless a newer one replaced
    // it: it would claim work clients never got.
    for (const c of checkpoints)
      if (failed.has(c.threadId))
        this.redis
          .eval(DROP_IF_SAME, 1, this.checkpointKey(c.turnId), c.json)
          .catch((error: unknown) => this.onError(error, c.threadId));
    this.storeAfter(checkpoints.filter((c) => !failed.has(c.threadId)));
    this.commitEnded();
  }

  /**
   * Hands checkpoints to the database one write at a time, off the commit path (frames are not held
   * for it): a turn's newer checkpoint replaces one still waiting, so writes never reorder.
   */
  private storeAfter(checkpoints: readonly StoredCheckpoint[]): void {
    const store = this.options.storeCheckpoints;
    if (!store || checkpoints.length === 0) return;
    for (const c of checkpoints) this.unstored.set(c.turnId, c);
    this.storesQueued++;
    if (!this.storing) this.storeWaiting(store);
  }

  private storeWaiting(store: NonNullable<RedisFrameLogOptions["storeCheckpoints"]>): void {
    this.storing = (async () => {
      while (this.unstored.size > 0) {
        const through = this.storesQueued;
        const batch = [...this.unstored.values()];
        this.unstored.clear();
        try {
          await store(batch);
        } catch (error) {
          // The turn goes on; a crash before its next checkpoint continues from an older one.
          for (const c of batch) this.onError(error, c.threadId);
        }
        this.storedThrough(through);
      }
    })().finally(() => {
      this.storing = undefined;
      // Queued after the loop's last look, before this ran.
      if (this.unstored.size > 0) this.storeWaiting(store);
    });
  }

  /** The database took every hand-over up to `through`: wakes the waits it settles. */
  private storedThrough(through: number): void {
    this.storesDone = through;
    if (this.storeWaiters.length === 0) return;
    const waiting = this.storeWaiters;
    this.storeWaiters = [];
    for (const waiter of waiting) {
      if (waiter.after <= through) waiter.resolve();
      else this.storeWaiters.push(waiter);
    }
  }

  /** The thread's frames as XADDs (a new turn first trims the older turns' entries), then its TTL. */
  private write(pipeline: ReturnType<Redis["pipeline"]>, thread: ThreadLog, frames: Pending[]): void {
    const key = this.key(thread.threadId);
    const end = this.endSeq.get(thread.threadId);
    for (const f of frames) {
      if (thread.storedTurnId !== f.turnId) {
        pipeline.xtrim(key, "MINID", `${f.seq}-0`);
        thread.storedTurnId = f.turnId;
      }
      const ends = f.seq === end ? ["e", "1"] : [];
      // "a": when it was appended (epoch ms), the clock restart recovery times a rebuilt turn's calls by.
      const at = String(Math.round(performance.timeOrigin + f.at));
      pipeline.xadd(
        key,
        "MAXLEN",
        "~",
        this.maxLength,
        `${f.seq}-0`,
        "t",
        f.turnId,
        "j",
        f.json,
        "a",
        at,
        ...ends,
      );
    }
    pipeline.pexpire(key, this.ttlMs);
    if (end !== undefined && (frames.at(-1) as Pending).seq >= end) this.endSeq.delete(thread.threadId);
  }

  private deliver(thread: ThreadLog, frames: Pending[]): void {
    thread.committedSeq = (frames.at(-1) as LoggedFrame).seq;
    thread.touchedAt = this.now();
    for (const subscriber of thread.subscribers.values()) {
      try {
        subscriber.deliver(frames);
      } catch (error) {
        this.onError(error, thread.threadId);
      }
    }
    thread.dropEndedWatchers();
    this.memory.touch(thread);
  }

  /** The stream's frames after `afterSeq` and whether its last entry ended the turn. */
  private async range(
    threadId: string,
    afterSeq: number,
  ): Promise<{ frames: LoggedFrame[]; ended: boolean }> {
    const entries = await this.redis.xrange(this.key(threadId), `(${afterSeq}-0`, "+");
    const frames = entries.map(([id, fields]) => frameOf(id, fields));
    const last = entries.at(-1);
    let ended = last !== undefined && field(last[1], "e") === "1";
    if (!last) {
      const tail = await this.redis.xrevrange(this.key(threadId), "+", "-", "COUNT", 1);
      ended = tail.length === 0 || field((tail[0] as [string, string[]])[1], "e") === "1";
    }
    return { frames, ended };
  }

  private follow(threadId: string, subscriber: FrameSubscriber, lastSeq: number): void {
    let followers = this.followers.get(threadId);
    if (!followers) {
      followers = new Map();
      this.followers.set(threadId, followers);
    }
    followers.set(subscriber.id, { subscriber, lastSeq });
    this.wakeReader();
  }

  private unfollow(threadId: string, subscriberId: string): void {
    const followers = this.followers.get(threadId);
    if (!followers?.delete(subscriberId)) return;
    if (followers.size === 0) this.followers.delete(threadId);
  }

  /** Starts the XREAD loop, or interrupts its current block so it reads the new set of streams. */
  private wakeReader(): void {
    if (this.reading) {
      if (this.readerId !== undefined) void this.redis.client("UNBLOCK", this.readerId).catch(() => {});
      return;
    }
    this.reading = this.readLoop().finally(() => {
      this.reading = undefined;
      // A follower added while the loop was leaving would otherwise wait for the next one.
      if (!this.closed && this.followers.size > 0) this.wakeReader();
    });
  }

  private async readLoop(): Promise<void> {
    this.readerId ??= Number(await this.reader.client("ID"));
    while (!this.closed && this.followers.size > 0) {
      const keys: string[] = [];
      const ids: string[] = [];
      for (const [threadId, followers] of this.followers) {
        keys.push(this.key(threadId));
        let min = Number.POSITIVE_INFINITY;
        for (const f of followers.values()) min = Math.min(min, f.lastSeq);
        ids.push(`${min}-0`);
      }
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await this.reader.xread("BLOCK", 5_000, "STREAMS", ...keys, ...ids)) as typeof reply;
      } catch (error) {
        if (this.closed) return;
        this.onError(error, "*");
        continue;
      }
      for (const [key, entries] of reply ?? []) this.fanOut(key.slice(this.key("").length), entries);
    }
  }

  private fanOut(threadId: string, entries: [string, string[]][]): void {
    const followers = this.followers.get(threadId);
    if (!followers) return;
    const frames = entries.map(([id, fields]) => frameOf(id, fields));
    const ended = entries.some(([, fields]) => field(fields, "e") === "1");
    for (const follower of followers.values()) {
      const fresh = frames.filter((f) => f.seq > follower.lastSeq);
      if (fresh.length === 0) continue;
      follower.lastSeq = (fresh.at(-1) as LoggedFrame).seq;
      try {
        follower.subscriber.deliver(fresh);
      } catch (error) {
        this.onError(error, threadId);
      }
    }
    if (ended) this.followers.delete(threadId);
  }
}

function seqOf(id: string): number {
  return Number(id.slice(0, id.indexOf("-")));
}

function field(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function frameOf(id: string, fields: string[]): LoggedFrame {
  const at = field(fields, "a");
  const frame = { seq: seqOf(id), json: field(fields, "j") ?? "{}" };
  return at === undefined ? frame : { ...frame, loggedAt: Number(at) };
}

function firstError(results: [Error | null, unknown][], from: number, to: number): Error | undefined {
  for (let i = from; i < to; i++) {
    const error = results[i]?.[0];
    if (error) return error;
  }
  return undefined;
}

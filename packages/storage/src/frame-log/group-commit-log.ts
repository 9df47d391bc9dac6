import type { BatchStore, Maybe } from "./batch-store.js";
import type { FrameLog, FrameSubscriber, LoggedFrame } from "./frame-log.js";
import { bytesOf } from "./memory-bound.js";
import { MemoryFrameLog, type MemoryFrameLogOptions } from "./memory-frame-log.js";
import {
  batchesOf,
  deliverCommitted,
  framesOf,
  gated,
  type Pending,
  recentAfter,
  type StoredBatch,
  type StoredCheckpoint,
  ThreadLog,
} from "./thread-log.js";

export interface GroupCommitLogOptions extends MemoryFrameLogOptions {
  /** Committed frames kept in memory per thread for replay; older ones are read from the store. */
  maxRecentFrames?: number;
  /** A commit failed for a passing reason; its frames wait and are tried again. Must not throw. */
  onRetry?: (error: unknown, threadId: string) => void;
  /**
   * Commits at most this often (default 0: once per event-loop turn, the lowest latency). A positive
   * value makes appends under load wait for the next commit at most this long and share it; back-to-back
   * short turns then wait for it too, so it trades latency for throughput.
   */
  minCommitIntervalMs?: number;
}

type Ready = [ThreadLog, Pending[]][];

/**
 * The frame log of one instance over a database: memory for the frames in flight and the latest turn
 * of active threads, a dialect's BatchStore for durability. Appends queue; one commit per event-loop
 * turn (sooner in a turn that runs long: see MemoryFrameLog.schedule) writes every queued frame of
 * every thread in one transaction, one row per thread and turn, and only then delivers them, so what a client receives survives a kill -9. Appends made while a commit
 * is in flight go in the next one. A thread's seq lives in memory once `claim` has read the highest
 * stored one: no write per frame beyond the frames. Several instances use the Redis log instead.
 */
export class GroupCommitLog extends MemoryFrameLog implements FrameLog {
  private readonly loading = new Map<string, Promise<ThreadLog>>();
  private readonly maxRecent: number;
  private readonly onRetry: (error: unknown, threadId: string) => void;
  private readonly minInterval: number;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private retryDelayMs = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly store: BatchStore,
    options: GroupCommitLogOptions = {},
  ) {
    super(options);
    this.maxRecent = options.maxRecentFrames ?? 20_000;
    this.onRetry = options.onRetry ?? (() => {});
    this.minInterval = options.minCommitIntervalMs ?? 0;
  }

  async claim(threadId: string, options: { turn?: boolean } = {}): Promise<void> {
    let thread = await this.load(threadId);
    // A commit ending between the load and here may have evicted it (see MemoryBound): a claim on the
    // forgotten object would be lost. Checked right after the await, with nothing in between.
    while (this.threads.get(threadId) !== thread) thread = await this.load(threadId);
    thread.touchedAt = this.now();
    if (options.turn !== false) thread.turnOpen = true;
  }

  checkpoint(threadId: string, turnId: string, json: string): void {
    if (this.closed) return;
    const thread = this.threads.get(threadId);
    if (!thread) throw new Error(`frame log: thread ${threadId} was not claimed before a checkpoint`);
    this.memory.checkpoint(thread, turnId, json);
    this.schedule();
  }

  handOff(threadId: string): void {
    // One instance: whoever continues the turn appends here, to the same subscribers (and claims again).
    const thread = this.threads.get(threadId);
    if (!thread) return;
    thread.turnOpen = false;
    this.memory.touch(thread);
  }

  async readAfter(threadId: string, afterSeq: number): Promise<LoggedFrame[]> {
    const thread = await this.load(threadId);
    this.memory.touch(thread);
    return recentAfter(thread, afterSeq) ?? this.storedAfter(threadId, afterSeq, thread.committedSeq);
  }

  async readTurn(threadId: string, turnId: string): Promise<LoggedFrame[]> {
    return framesOf(await this.store.turn(threadId, turnId), 0);
  }

  async resume(
    threadId: string,
    afterSeq: number,
    subscriber: FrameSubscriber,
    follow: boolean,
  ): Promise<{ replayed: number; lastSeq: number }> {
    let thread = await this.load(threadId);
    // As in claim: a subscriber set on an evicted thread's object would never hear of its next turn.
    while (this.threads.get(threadId) !== thread) thread = await this.load(threadId);
    this.memory.touch(thread);
    const recent = recentAfter(thread, afterSeq);
    if (recent) {
      // From memory, synchronously up to the subscription: no commit can deliver in between.
      if (recent.length > 0) subscriber.deliver(recent);
      if (follow) thread.follow(subscriber);
      return { replayed: recent.length, lastSeq: thread.committedSeq };
    }
    const gate = gated(subscriber, afterSeq);
    if (follow) thread.follow(gate);
    const frames = await this.storedAfter(threadId, afterSeq, thread.committedSeq);
    gate.open(frames);
    return { replayed: frames.length, lastSeq: gate.seq() };
  }

  subscribe(threadId: string, subscriber: FrameSubscriber): void {
    this.threads.get(threadId)?.follow(subscriber);
  }

  unsubscribe(threadId: string, subscriberId: string): void {
    this.memory.unsubscribe(threadId, subscriberId);
  }

  unsubscribeEverywhere(subscriberId: string): void {
    this.memory.unsubscribeEverywhere(subscriberId);
  }

  endSubscriptions(threadId: string): void {
    this.memory.endSubscriptions(threadId);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.memory.stopSweeping();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // A commit already queued or running takes what is pending: never two at once. With a synchronous
    // store this one is done when close returns.
    if (!this.committing) this.commit();
  }

  /** The thread's log in memory, reading its last seq from the store the first time. */
  private load(threadId: string): Promise<ThreadLog> {
    const known = this.threads.get(threadId);
    if (known) return Promise.resolve(known);
    let loading = this.loading.get(threadId);
    if (!loading) {
      loading = Promise.resolve(this.store.lastSeq(threadId))
        .then((seq) => {
          // A concurrent caller may have made it while the read ran.
          let thread = this.threads.get(threadId);
          if (!thread) {
            thread = new ThreadLog(threadId, seq, seq, this.now());
            this.threads.set(threadId, thread);
          }
          return thread;
        })
        .finally(() => this.loading.delete(threadId));
      this.loading.set(threadId, loading);
    }
    return loading;
  }

  /** Stored frames after `afterSeq`, only those committed when asked: later ones reach a subscriber live. */
  private async storedAfter(threadId: string, afterSeq: number, upTo: number): Promise<LoggedFrame[]> {
    const frames = framesOf(await this.store.after(threadId, afterSeq), afterSeq);
    return frames.at(-1) && (frames.at(-1) as LoggedFrame).seq > upTo
      ? frames.filter((f) => f.seq <= upTo)
      : frames;
  }

  protected override commitsHeld(): boolean {
    // While a retry waits out its backoff, new frames wait with it (they would fail the same way).
    return this.retryTimer !== undefined;
  }

  protected override commitDelay(): number {
    const wait = this.lastCommitAt + this.minInterval - performance.now();
    return wait > 0 ? wait : 0;
  }

  /**
   * One group commit: every committable frame of every thread in one transaction, then delivery. A
   * synchronous store (SQLite) writes, settles and delivers within this call.
   */
  protected commit(): void {
    this.scheduled = false;
    this.committing = true;
    this.lastCommitAt = performance.now();
    const ready = this.memory.take();
    const checkpoints = this.memory.takeCheckpoints();
    const written = ready.length > 0 || checkpoints.length > 0 ? this.writeReady(ready, checkpoints) : [];
    if (written instanceof Promise) void written.then((w) => this.finish(w));
    else this.finish(written);
  }

  /** Settles the store's commit, delivers what it wrote, and wakes the flushes it ends. */
  private finish(written: Ready): void {
    try {
      this.store.settle?.();
      const now = this.now();
      for (const [thread, frames] of written) {
        this.memory.freed(deliverCommitted(thread, frames, now, this.maxRecent, this.onError));
        this.memory.touch(thread);
      }
    } catch (error) {
      for (const [thread] of written) this.onError(error, thread.threadId);
    }
    this.commitEnded();
  }

  /** Writes in one transaction; if that fails, thread by thread, so one bad thread cannot stop the rest. */
  private writeReady(ready: Ready, checkpoints: StoredCheckpoint[]): Maybe<Ready> {
    const turns = ready.map(([thread]) => thread.storedTurnId);
    const fallBack = () => this.oneByOne(ready, turns, checkpoints);
    try {
      const done = this.store.write(this.batches(ready), this.now(), checkpoints);
      if (done instanceof Promise)
        return done.then(() => {
          this.retryDelayMs = 0;
          return ready;
        }, fallBack);
      return ready;
    } catch {
      return fallBack();
    }
  }

  /**
   * Thread by thread after a failed commit. A thread whose write fails for a passing reason (connection
   * lost, failover, timeout) gets its frames back at the front of its queue and is tried again after a
   * backoff: nothing was sent, so nothing is lost. A write the store refuses outright drops them
   * (reported through onError).
   */
  private async oneByOne(
    ready: Ready,
    turns: (string | undefined)[],
    checkpoints: StoredCheckpoint[],
  ): Promise<Ready> {
    const written: Ready = [];
    // A thread's checkpoint goes with its frames (never without them); one whose frames went before, alone.
    const alone = checkpoints.filter((c) => !ready.some(([thread]) => thread.threadId === c.threadId));
    for (const c of alone) {
      try {
        await this.store.write([], this.now(), [c]);
      } catch (error) {
        if (this.store.passing?.(error)) this.memory.requeueCheckpoint(c);
        else this.onError(error, c.threadId);
      }
    }
    for (let i = 0; i < ready.length; i++) {
      const entry = ready[i] as [ThreadLog, Pending[]];
      const [thread, frames] = entry;
      const own = checkpoints.filter((c) => c.threadId === thread.threadId);
      // batchesOf moved the stored turn on; the failed transaction did not.
      thread.storedTurnId = turns[i];
      try {
        await this.store.write(this.batches([entry]), this.now(), own);
        written.push(entry);
      } catch (error) {
        thread.storedTurnId = turns[i];
        if (this.store.passing?.(error)) {
          this.memory.requeue(thread, frames);
          for (const c of own) this.memory.requeueCheckpoint(c);
          this.onRetry(error, thread.threadId);
          this.retryLater();
        } else {
          // Never sent, so no client holds them; the turn hears of it through onError.
          this.memory.freed(bytesOf(frames));
          this.onError(error, thread.threadId);
        }
      }
    }
    return written;
  }

  private batches(ready: Ready): { batch: StoredBatch; prune: boolean }[] {
    const out: { batch: StoredBatch; prune: boolean }[] = [];
    for (const [thread, frames] of ready) for (const b of batchesOf(thread, frames)) out.push(b);
    return out;
  }

  /** The next commit after a backoff (doubling to 2 s), instead of at once against a database that is away. */
  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryDelayMs = Math.min(2_000, Math.max(50, this.retryDelayMs * 2));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.schedule();
    }, this.retryDelayMs);
  }
}

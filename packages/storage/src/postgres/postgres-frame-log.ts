import type { UnstampedFrame } from "@agentwire/protocol";
import type pg from "pg";
import type { FrameLog, FrameSubscriber, LoggedFrame } from "../frame-log.js";
import {
  type BatchRow,
  batchesOf,
  defaultSchedule,
  deliverCommitted,
  framesOf,
  gated,
  LogMemory,
  type Pending,
  recentAfter,
  type StoredBatch,
  ThreadLog,
} from "../thread-log.js";

export interface PostgresFrameLogOptions {
  /** A thread with nothing pending and no subscriber leaves memory after this long (its frames stay stored). */
  idleMs?: number;
  /** Committed frames kept in memory per thread for replay; older ones are read from the database. */
  maxRecentFrames?: number;
  /** A commit (or a subscriber) failed; the frames of that thread in that commit were not sent. Must not throw. */
  onError?: (error: unknown, threadId: string) => void;
  /** A commit failed for a passing reason; its frames wait and are tried again. Must not throw. */
  onRetry?: (error: unknown, threadId: string) => void;
  now?: () => number;
  /** Runs a commit after `delayMs` (tests step commits by hand). */
  schedule?: (commit: () => void, delayMs: number) => void;
}

/**
 * The frame log of one instance on Postgres (no Redis): the SQLite log's design with an asynchronous
 * commit. Appends queue in memory; one transaction per commit writes every thread's queued frames to
 * `frame_batches` (one multi-row INSERT), and only then are they delivered, so what a client received
 * survives a kill -9. Appends made while a commit is in flight go in the next one. Seqs live in memory
 * after `claim` reads the highest stored one: with several instances, use the Redis log.
 */
export class PostgresFrameLog implements FrameLog {
  private readonly memory: LogMemory;
  private readonly threads: Map<string, ThreadLog>;
  private readonly loading = new Map<string, Promise<ThreadLog>>();
  private scheduled = false;
  private committing = false;
  private closed = false;
  private readonly maxRecent: number;
  private readonly onError: (error: unknown, threadId: string) => void;
  private readonly now: () => number;
  private readonly scheduleCommit: (commit: () => void, delayMs: number) => void;
  private readonly onRetry: (error: unknown, threadId: string) => void;
  private retryDelayMs = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresFrameLogOptions = {},
  ) {
    this.maxRecent = options.maxRecentFrames ?? 20_000;
    this.onError = options.onError ?? (() => {});
    this.onRetry = options.onRetry ?? (() => {});
    this.now = options.now ?? Date.now;
    this.memory = new LogMemory(this.now);
    this.threads = this.memory.threads;
    this.scheduleCommit = options.schedule ?? defaultSchedule;
    this.memory.startSweeping(options.idleMs ?? 5 * 60_000);
  }

  async claim(threadId: string): Promise<void> {
    // A turn starts here: the idle sweep leaves the thread alone for a while.
    (await this.load(threadId)).touchedAt = this.now();
  }

  append(threadId: string, turnId: string, frame: UnstampedFrame): LoggedFrame {
    if (this.closed) throw new Error("frame log is closed");
    const thread = this.threads.get(threadId);
    if (!thread) throw new Error(`frame log: thread ${threadId} was not claimed before appending`);
    const entry = this.memory.queue(thread, turnId, frame);
    this.schedule();
    return entry;
  }

  hold(threadId: string): void {
    this.memory.hold(threadId);
  }

  release(threadId: string): void {
    if (this.memory.release(threadId)) this.schedule();
  }

  handOff(_threadId: string): void {
    // One instance: whoever continues the turn appends here, to the same subscribers.
  }

  async readAfter(threadId: string, afterSeq: number): Promise<LoggedFrame[]> {
    const thread = await this.load(threadId);
    return recentAfter(thread, afterSeq) ?? this.selectAfter(threadId, afterSeq, thread.committedSeq);
  }

  async readTurn(threadId: string, turnId: string): Promise<LoggedFrame[]> {
    const result = await this.pool.query<BatchRow>(
      "SELECT first_seq, frames FROM frame_batches WHERE thread_id = $1 AND turn_id = $2 ORDER BY first_seq",
      [threadId, turnId],
    );
    return framesOf(result.rows, 0);
  }

  async resume(
    threadId: string,
    afterSeq: number,
    subscriber: FrameSubscriber,
    follow: boolean,
  ): Promise<{ replayed: number; lastSeq: number }> {
    const thread = await this.load(threadId);
    const recent = recentAfter(thread, afterSeq);
    if (recent) {
      // From memory, synchronously up to the subscription: no commit can deliver in between.
      if (recent.length > 0) subscriber.deliver(recent);
      if (follow) thread.subscribers.set(subscriber.id, subscriber);
      return { replayed: recent.length, lastSeq: thread.committedSeq };
    }
    const gate = gated(subscriber, afterSeq);
    if (follow) thread.subscribers.set(subscriber.id, gate);
    const frames = await this.selectAfter(threadId, afterSeq, thread.committedSeq);
    gate.open(frames);
    return { replayed: frames.length, lastSeq: gate.seq() };
  }

  subscribe(threadId: string, subscriber: FrameSubscriber): void {
    this.threads.get(threadId)?.subscribers.set(subscriber.id, subscriber);
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

  lastSeq(threadId: string): number {
    return this.threads.get(threadId)?.lastSeq ?? 0;
  }

  flush(): Promise<void> {
    return this.memory.waitFlushed(this.committing);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.memory.stopSweeping();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // A commit already queued or running takes what is pending: never two at once.
    if (!this.committing && !this.scheduled) void this.commit();
  }

  /** The thread's log in memory, reading its last seq from the database the first time. */
  private load(threadId: string): Promise<ThreadLog> {
    const known = this.threads.get(threadId);
    if (known) return Promise.resolve(known);
    let loading = this.loading.get(threadId);
    if (!loading) {
      loading = this.pool
        .query<{ seq: string }>(
          "SELECT coalesce(max(last_seq), 0) AS seq FROM frame_batches WHERE thread_id = $1",
          [threadId],
        )
        .then((result) => {
          const seq = Number(result.rows[0]?.seq ?? 0);
          // A concurrent caller may have made it while the query ran.
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

  private async selectAfter(threadId: string, afterSeq: number, upTo: number): Promise<LoggedFrame[]> {
    const result = await this.pool.query<BatchRow>(
      "SELECT first_seq, frames FROM frame_batches WHERE thread_id = $1 AND last_seq > $2 ORDER BY first_seq",
      [threadId, afterSeq],
    );
    // Only what was committed when asked: later frames reach a subscriber live.
    return framesOf(result.rows, afterSeq).filter((f) => f.seq <= upTo);
  }

  private schedule(): void {
    // While a retry waits out its backoff, new frames wait with it (they would fail the same way).
    if (this.scheduled || this.committing || this.retryTimer) return;
    this.scheduled = true;
    this.scheduleCommit(() => void this.commit(), 0);
  }

  /** One group commit: every committable frame of every thread in one transaction, then delivery. */
  private async commit(): Promise<void> {
    this.scheduled = false;
    this.committing = true;
    const ready = this.memory.take();
    if (ready.length > 0) {
      for (const [thread, frames] of await this.writeReady(ready))
        deliverCommitted(thread, frames, this.now(), this.maxRecent, this.onError);
    }
    this.committing = false;
    this.memory.committed();
    if (this.memory.hasCommittable()) this.schedule();
  }

  /**
   * Writes in one transaction; if that fails, thread by thread, so one bad thread cannot stop the rest.
   * A thread whose write fails for a passing reason (connection lost, failover, timeout) gets its frames
   * back at the front of its queue and is tried again after a backoff: nothing was sent, so nothing is
   * lost. Only a write the database refuses outright drops them (reported through onError).
   */
  private async writeReady(ready: [ThreadLog, Pending[]][]): Promise<[ThreadLog, Pending[]][]> {
    const turns = ready.map(([thread]) => thread.storedTurnId);
    try {
      await this.write(ready);
      this.retryDelayMs = 0;
      return ready;
    } catch {
      const written: [ThreadLog, Pending[]][] = [];
      for (let i = 0; i < ready.length; i++) {
        const entry = ready[i] as [ThreadLog, Pending[]];
        const [thread, frames] = entry;
        // batchesOf moved the stored turn on; the failed transaction did not.
        thread.storedTurnId = turns[i];
        try {
          await this.write([entry]);
          written.push(entry);
        } catch (error) {
          thread.storedTurnId = turns[i];
          if (isPassing(error)) {
            this.memory.requeue(thread, frames);
            this.onRetry(error, thread.threadId);
            this.retryLater();
          } else {
            // Never sent, so no client holds them; the turn hears of it through onError.
            this.onError(error, thread.threadId);
          }
        }
      }
      return written;
    }
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

  private async write(ready: [ThreadLog, Pending[]][]): Promise<void> {
    const batches: StoredBatch[] = [];
    const prunes: StoredBatch[] = [];
    for (const [thread, frames] of ready) {
      for (const { batch, prune } of batchesOf(thread, frames)) {
        if (prune) prunes.push(batch);
        batches.push(batch);
      }
    }
    const now = this.now();
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      // A statement takes at most 65,535 parameters.
      for (let from = 0; from < batches.length; from += 5_000) {
        const params: unknown[] = [];
        const rows = batches.slice(from, from + 5_000).map((b) => {
          const at = params.length;
          params.push(b.threadId, b.firstSeq, b.lastSeq, b.turnId, b.lines, now);
          return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6})`;
        });
        // A retry after a COMMIT whose reply was lost finds its rows there already.
        await client.query(
          `INSERT INTO frame_batches (thread_id, first_seq, last_seq, turn_id, frames, created_at) VALUES ${rows.join(", ")}
           ON CONFLICT (thread_id, first_seq) DO NOTHING`,
          params,
        );
      }
      // After the inserts, so that frames of an older turn written in this same commit go too.
      for (const p of prunes)
        await client.query(
          "DELETE FROM frame_batches WHERE thread_id = $1 AND turn_id <> $2 AND first_seq < $3",
          [p.threadId, p.turnId, p.firstSeq],
        );
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/**
 * A failure worth retrying: the connection (SQLSTATE class 08), the server going away (57P0x), a
 * cancelled or timed-out statement (57014), a serialization or deadlock abort (40xxx), or no SQLSTATE
 * at all (a socket error). Constraint and data errors (23xxx, 22xxx) will fail again the same way.
 */
function isPassing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith("08") || code.startsWith("57") || code.startsWith("40") || code.startsWith("53");
}

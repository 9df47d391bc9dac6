import type { UnstampedFrame } from "@agentwire/protocol";
import type Database from "better-sqlite3";
import type { FrameLog, FrameSubscriber, LoggedFrame } from "../frame-log.js";
import {
  type BatchRow,
  batchesOf,
  defaultSchedule,
  deliverCommitted,
  framesOf,
  LogMemory,
  type Pending,
  recentAfter,
  ThreadLog,
} from "../thread-log.js";
import { commitBatch } from "./write-batch.js";

export interface SqliteFrameLogOptions {
  /** A thread with nothing pending and no subscriber leaves memory after this long (its frames stay on disk). */
  idleMs?: number;
  /** Committed frames kept in memory per thread for replay; older ones are read from disk. */
  maxRecentFrames?: number;
  /** A commit (or a subscriber) failed; the frames of that thread in that commit were not sent. Must not throw. */
  onError?: (error: unknown, threadId: string) => void;
  now?: () => number;
  /**
   * Commits at most this often (default 0: once per event-loop turn, the lowest latency). A
   * positive value makes appends under load wait for the next commit at most this long and share
   * it; back-to-back short turns then wait for it too, so it trades latency for throughput.
   */
  minCommitIntervalMs?: number;
  /** Runs a commit after `delayMs`; tests step commits by hand with it. */
  schedule?: (commit: () => void, delayMs: number) => void;
}

/**
 * The local frame log: memory for the frames in flight and the latest turn of active threads, SQLite
 * (`frame_batches`) for durability. Appends queue; one commit per event-loop turn (setImmediate)
 * writes every queued frame of every thread in one transaction, one row per thread and turn, and
 * only then delivers the frames to subscribers, so what a client receives survives a kill -9.
 * A thread's seq lives in memory, loaded once from the highest seq on disk (the stored frames
 * themselves; `threads.last_seq` for threads from before the frame log): no write per frame, and
 * none per commit beyond the frames.
 */
export class SqliteFrameLog implements FrameLog {
  private readonly memory: LogMemory;
  private readonly threads: Map<string, ThreadLog>;
  private scheduled = false;
  private closed = false;
  private readonly maxRecent: number;
  private readonly onError: (error: unknown, threadId: string) => void;
  private readonly now: () => number;
  private readonly scheduleCommit: (commit: () => void, delayMs: number) => void;
  private readonly minInterval: number;
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private readonly loadSeq: Database.Statement<{ id: string }, { seq: number }>;
  private readonly insertBatch: Database.Statement<[string, number, number, string, string, number]>;
  private readonly pruneOtherTurns: Database.Statement<[string, string]>;
  private readonly selectAfter: Database.Statement<[string, number], BatchRow>;
  private readonly selectTurn: Database.Statement<[string, string], BatchRow>;
  private readonly writeAll: (ready: [ThreadLog, Pending[]][]) => void;

  constructor(
    private readonly sqlite: Database.Database,
    options: SqliteFrameLogOptions = {},
  ) {
    this.maxRecent = options.maxRecentFrames ?? 20_000;
    this.onError = options.onError ?? (() => {});
    this.now = options.now ?? Date.now;
    this.memory = new LogMemory(this.now);
    this.threads = this.memory.threads;
    this.scheduleCommit = options.schedule ?? defaultSchedule;
    this.minInterval = options.minCommitIntervalMs ?? 0;
    this.loadSeq = sqlite.prepare(
      `SELECT max(coalesce((SELECT last_seq FROM threads WHERE id = @id), 0),
                  coalesce((SELECT max(last_seq) FROM frame_batches WHERE thread_id = @id), 0)) AS seq`,
    );
    this.insertBatch = sqlite.prepare(
      "INSERT INTO frame_batches (thread_id, first_seq, last_seq, turn_id, frames, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.pruneOtherTurns = sqlite.prepare("DELETE FROM frame_batches WHERE thread_id = ? AND turn_id <> ?");
    this.selectAfter = sqlite.prepare(
      "SELECT first_seq, frames FROM frame_batches WHERE thread_id = ? AND last_seq > ? ORDER BY first_seq",
    );
    this.selectTurn = sqlite.prepare(
      "SELECT first_seq, frames FROM frame_batches WHERE thread_id = ? AND turn_id = ? ORDER BY first_seq",
    );
    this.writeAll = sqlite.transaction((ready: [ThreadLog, Pending[]][]) => {
      for (const [thread, frames] of ready) this.write(thread, frames);
    });
    this.memory.startSweeping(options.idleMs ?? 5 * 60_000);
  }

  async claim(threadId: string): Promise<void> {
    // One process per database file: the seq in memory is always the latest.
    this.thread(threadId).touchedAt = this.now();
  }

  append(threadId: string, turnId: string, frame: UnstampedFrame): LoggedFrame {
    if (this.closed) throw new Error("frame log is closed");
    const entry = this.memory.queue(this.thread(threadId), turnId, frame);
    this.schedule();
    return entry;
  }

  hold(threadId: string): void {
    this.thread(threadId);
    this.memory.hold(threadId);
  }

  release(threadId: string): void {
    if (this.memory.release(threadId)) this.schedule();
  }

  handOff(_threadId: string): void {
    // One process: whoever continues the turn appends here, to the same subscribers.
  }

  async readAfter(threadId: string, afterSeq: number): Promise<LoggedFrame[]> {
    return this.committedAfter(this.thread(threadId), afterSeq);
  }

  async readTurn(threadId: string, turnId: string): Promise<LoggedFrame[]> {
    return framesOf(this.selectTurn.all(threadId, turnId), 0);
  }

  async resume(
    threadId: string,
    afterSeq: number,
    subscriber: FrameSubscriber,
    follow: boolean,
  ): Promise<{ replayed: number; lastSeq: number }> {
    // Synchronous from the read to the subscription: a commit cannot deliver in between.
    const thread = this.thread(threadId);
    const frames = this.committedAfter(thread, afterSeq);
    if (frames.length > 0) subscriber.deliver(frames);
    if (follow) thread.subscribers.set(subscriber.id, subscriber);
    return { replayed: frames.length, lastSeq: thread.committedSeq };
  }

  subscribe(threadId: string, subscriber: FrameSubscriber): void {
    this.thread(threadId).subscribers.set(subscriber.id, subscriber);
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
    return this.thread(threadId).lastSeq;
  }

  flush(): Promise<void> {
    return this.memory.waitFlushed(false);
  }

  close(): void {
    if (this.closed) return;
    this.commit();
    this.closed = true;
    this.memory.stopSweeping();
  }

  /** The thread's log in memory, loading its seq from disk the first time. */
  private thread(threadId: string): ThreadLog {
    let thread = this.threads.get(threadId);
    if (!thread) {
      const seq = this.loadSeq.get({ id: threadId })?.seq ?? 0;
      thread = new ThreadLog(threadId, seq, seq, this.now());
      this.threads.set(threadId, thread);
    }
    return thread;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastCommitAt + this.minInterval - performance.now();
    this.scheduleCommit(() => this.commit(), wait > 0 ? wait : 0);
  }

  /** One group commit: every committable frame of every thread in one transaction, then delivery. */
  private commit(): void {
    this.scheduled = false;
    this.lastCommitAt = performance.now();
    const ready = this.memory.take();
    const written = ready.length > 0 ? this.writeReady(ready) : [];
    try {
      // The rows written this tick (sqliteStorage batches them) commit with the frames, before any is sent.
      commitBatch(this.sqlite);
      for (const [thread, frames] of written) this.deliver(thread, frames);
    } catch (error) {
      for (const [thread] of written) this.onError(error, thread.threadId);
    }
    this.memory.committed();
  }

  /** Writes in one transaction; if that fails, thread by thread, so one bad thread cannot stop the rest. */
  private writeReady(ready: [ThreadLog, Pending[]][]): [ThreadLog, Pending[]][] {
    try {
      this.writeAll(ready);
      return ready;
    } catch {
      const written: [ThreadLog, Pending[]][] = [];
      for (const entry of ready) {
        try {
          this.writeAll([entry]);
          written.push(entry);
        } catch (error) {
          // Never sent, so no client holds them; the turn hears of it through onError.
          this.onError(error, entry[0].threadId);
        }
      }
      return written;
    }
  }

  /** One row per run of frames of the same turn (a new turn's first row prunes the older turns' rows). */
  private write(thread: ThreadLog, frames: Pending[]): void {
    const now = this.now();
    for (const { batch, prune } of batchesOf(thread, frames)) {
      if (prune) this.pruneOtherTurns.run(batch.threadId, batch.turnId);
      this.insertBatch.run(batch.threadId, batch.firstSeq, batch.lastSeq, batch.turnId, batch.lines, now);
    }
  }

  private deliver(thread: ThreadLog, frames: Pending[]): void {
    deliverCommitted(thread, frames, this.now(), this.maxRecent, this.onError);
  }

  /** Committed frames after `afterSeq`: from memory when it holds them, else from disk. */
  private committedAfter(thread: ThreadLog, afterSeq: number): LoggedFrame[] {
    return (
      recentAfter(thread, afterSeq) ?? framesOf(this.selectAfter.all(thread.threadId, afterSeq), afterSeq)
    );
  }
}

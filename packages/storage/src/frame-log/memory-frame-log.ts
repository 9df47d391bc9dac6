import type { UnstampedFrame } from "@agentwire-chat/protocol";
import type { FrameLogMemoryStats, LoggedFrame } from "./frame-log.js";
import { DEFAULT_FRAME_LOG_MEMORY_BYTES } from "./memory-bound.js";
import { defaultSchedule, LogMemory, type ThreadLog } from "./thread-log.js";

export interface MemoryFrameLogOptions {
  /** A thread with nothing pending, held or subscribed leaves memory after this long (its frames stay stored). */
  idleMs?: number;
  /**
   * Frames held in memory (their JSON length) above which the least recently used idle threads are
   * forgotten before the idle sweep would (default 64 MiB); a running turn's frames are never forgotten.
   */
  maxMemoryBytes?: number;
  /** A commit (or a subscriber) failed; the frames of that thread in that commit were not sent. Must not throw. */
  onError?: (error: unknown, threadId: string) => void;
  now?: () => number;
  /** Runs a commit after `delayMs`; tests step commits by hand with it. */
  schedule?: (commit: () => void, delayMs: number) => void;
}

/** How long past its time a queued commit waits before an append commits early (see commitIfOverdue). */
const LONG_TICK_MS = 10;

/**
 * What every frame log does the same in memory: appends stamp and queue, holds, flushes, and the
 * group-commit cycle (one commit queued or running at a time; frames appended meanwhile go in the
 * next). A subclass says where a commit writes (a database's batch store, a Redis stream) and how it
 * replays.
 */
export abstract class MemoryFrameLog {
  protected readonly memory: LogMemory;
  protected readonly threads: Map<string, ThreadLog>;
  protected scheduled = false;
  protected committing = false;
  protected closed = false;
  protected readonly onError: (error: unknown, threadId: string) => void;
  protected readonly now: () => number;
  private readonly scheduleCommit: (commit: () => void, delayMs: number) => void;
  // Never while one runs: a commit queued before an early one (see commitIfOverdue) may fire during it.
  private readonly commitNow = () => {
    if (!this.committing) void this.commit();
  };
  /** When the queued commit is overdue (performance.now()), its delay and LONG_TICK_MS past its queueing. */
  private commitDue = Number.POSITIVE_INFINITY;
  private earlyCommitQueued = false;
  private readonly commitEarly = () => {
    this.earlyCommitQueued = false;
    if (this.scheduled && !this.committing && !this.closed) void this.commit();
  };

  constructor(options: MemoryFrameLogOptions) {
    this.onError = options.onError ?? (() => {});
    this.now = options.now ?? Date.now;
    this.memory = new LogMemory(this.now, options.maxMemoryBytes ?? DEFAULT_FRAME_LOG_MEMORY_BYTES);
    this.threads = this.memory.threads;
    this.scheduleCommit = options.schedule ?? defaultSchedule;
    this.memory.startSweeping(options.idleMs ?? 5 * 60_000);
  }

  /** Stamps the frame with the thread's next seq and queues it for the next commit; returns the stamp. */
  append(threadId: string, turnId: string, frame: UnstampedFrame): LoggedFrame {
    if (this.closed) throw new Error("frame log is closed");
    const thread = this.threads.get(threadId);
    if (!thread) throw new Error(`frame log: thread ${threadId} was not claimed before appending`);
    const entry = this.memory.queue(thread, turnId, frame);
    this.schedule();
    return entry;
  }

  /** Frames appended from now on stay uncommitted (and unsent) until `release`. */
  hold(threadId: string): void {
    this.memory.hold(threadId);
  }

  /** Ends a hold: the held frames go out with the next commit. */
  release(threadId: string): void {
    if (this.memory.release(threadId)) this.schedule();
  }

  /** The seq of the last frame appended on the thread, committed or not. */
  lastSeq(threadId: string): number {
    return this.threads.get(threadId)?.lastSeq ?? 0;
  }

  /**
   * What the log holds of the thread in memory (frames waiting for a commit and those kept for replay):
   * bounded by the replay window however long its turn streams.
   */
  retained(threadId: string): { frames: number; bytes: number } {
    const thread = this.threads.get(threadId);
    if (!thread) return { frames: 0, bytes: 0 };
    let bytes = 0;
    for (const f of thread.pending) bytes += f.json.length;
    for (const f of thread.recent) bytes += f.json.length;
    return { frames: thread.pending.length + thread.recent.length, bytes };
  }

  /** The bytes of frames held in memory, the bound on them, and the idle threads forgotten to keep it. */
  memoryStats(): FrameLogMemoryStats {
    return this.memory.bound.stats();
  }

  /** Resolves once everything appended so far (held frames aside) is committed and delivered. */
  flush(): Promise<void> {
    return this.memory.waitFlushed(this.committing);
  }

  /** A commit is queued and has not started. */
  get commitQueued(): boolean {
    return this.scheduled;
  }

  /** Queues a commit unless one is queued or running, or the subclass holds commits back for now. */
  protected schedule(): void {
    if (this.scheduled) {
      this.commitIfOverdue();
      return;
    }
    if (this.committing || this.commitsHeld()) return;
    this.scheduled = true;
    const delay = this.commitDelay();
    this.commitDue = performance.now() + delay + LONG_TICK_MS;
    this.scheduleCommit(this.commitNow, delay);
  }

  /**
   * A commit queued for the end of this event-loop turn waits for every I/O callback of the turn's
   * poll phase, and under a burst of new sockets that phase ran for hundreds of milliseconds while the
   * running streams' chunks waited unsent. Once the queued commit is LONG_TICK_MS overdue, the next
   * append commits right after the callback that made it (a microtask: never inside a synchronous
   * write), and the queued one finds what came after.
   */
  private commitIfOverdue(): void {
    if (this.earlyCommitQueued || performance.now() < this.commitDue) return;
    this.earlyCommitQueued = true;
    queueMicrotask(this.commitEarly);
  }

  /** True while commits must wait (a retry's backoff); the next `schedule` after it queues one. */
  protected commitsHeld(): boolean {
    return false;
  }

  /** How long the next commit waits (0: the end of this event-loop turn). */
  protected commitDelay(): number {
    return 0;
  }

  /** One group commit: takes from `memory`, writes, delivers, and ends with `commitEnded`. */
  protected abstract commit(): void | Promise<void>;

  /** A commit ended (written and delivered, or failed and reported): the next one is queued if frames wait. */
  protected commitEnded(): void {
    this.committing = false;
    this.memory.committed();
    // Between commits: nothing is in flight, so every thread the bound may forget is fully stored.
    this.memory.evictIdle();
    if (this.memory.hasCommittable()) this.schedule();
  }
}

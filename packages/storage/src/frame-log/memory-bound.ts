import type { FrameLogMemoryStats, LoggedFrame } from "./frame-log.js";

/** What the bound needs of a thread's log: its id and the frames it holds (ThreadLog, which imports this file). */
type HeldThread = { threadId: string; pending: readonly LoggedFrame[]; recent: readonly LoggedFrame[] };

/** The default `maxMemoryBytes`: frames a log holds in memory before it forgets idle threads. */
export const DEFAULT_FRAME_LOG_MEMORY_BYTES = 64 * 1024 * 1024;

/** The length of the frames' serialized forms (what `bytes` counts: UTF-16 units, bytes for ASCII JSON). */
export function bytesOf(frames: readonly LoggedFrame[], from = 0, to = frames.length): number {
  let n = 0;
  for (let i = from; i < to; i++) n += (frames[i] as LoggedFrame).json.length;
  return n;
}

/**
 * The byte bound on a frame log's memory. The idle sweep alone bounds memory by time (threads used in
 * the last minutes), which a burst of short turns on new threads turns into hundreds of megabytes; this
 * counts the frames held (each frame's JSON length, added once at append and taken off once when the
 * frame leaves memory) and, once over the bound, forgets the least recently used idle threads: their
 * frames are stored, so a replay reads them back as it does after the sweep.
 */
export class MemoryBound<T extends HeldThread = HeldThread> {
  /** Serialized length of every frame held: pending, in a commit, or kept for replay. */
  bytes = 0;
  evictions = 0;
  /**
   * Threads that may be idle, least recently used first (a Set keeps insertion order; `touch`
   * re-inserts). Loose on purpose: one found busy at eviction leaves the set and comes back on its
   * next touch, so each touch costs O(1) and each eviction pass visits an entry once.
   */
  private readonly candidates = new Set<T>();

  constructor(readonly maxBytes: number) {}

  /** The thread was used and may be idle now: it becomes the most recently used candidate. */
  touch(thread: T): void {
    this.candidates.delete(thread);
    this.candidates.add(thread);
  }

  /** The thread left memory (swept or evicted): its frames no longer count. */
  forget(thread: T): void {
    this.candidates.delete(thread);
    this.bytes -= bytesOf(thread.pending) + bytesOf(thread.recent);
  }

  /**
   * While over the bound, forgets the least recently used candidates that `idle` accepts (from
   * `threads`); returns how many went. Only call when no commit is in flight.
   */
  evict(threads: Map<string, T>, idle: (thread: T) => boolean): number {
    let evicted = 0;
    for (const thread of this.candidates) {
      if (this.bytes <= this.maxBytes) break;
      this.candidates.delete(thread);
      if (threads.get(thread.threadId) !== thread || !idle(thread)) continue;
      threads.delete(thread.threadId);
      this.forget(thread);
      evicted++;
    }
    this.evictions += evicted;
    return evicted;
  }

  stats(): FrameLogMemoryStats {
    return { bytes: this.bytes, maxBytes: this.maxBytes, evictions: this.evictions };
  }
}

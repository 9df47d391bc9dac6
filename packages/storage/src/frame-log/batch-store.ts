import type { BatchRow, StoredBatch, StoredCheckpoint } from "./thread-log.js";

/** A value now (SQLite answers synchronously) or later (Postgres). */
export type Maybe<T> = T | Promise<T>;

/**
 * Where a group-commit log keeps its frames: one small store per dialect, over `frame_batches`.
 * SQLite answers synchronously, so its commits stay inside one event-loop turn; Postgres answers later.
 */
export interface BatchStore {
  /** The highest stored seq of the thread, 0 when it has none. */
  lastSeq(threadId: string): Maybe<number>;
  /**
   * Writes one commit's batches in one transaction. `prune` marks the first batch of a turn: the
   * thread's rows of other turns go (a thread keeps its last turn). `checkpoints` replace their turns'
   * stored one in the same transaction. Throws when nothing was written.
   */
  write(
    batches: readonly { batch: StoredBatch; prune: boolean }[],
    now: number,
    checkpoints?: readonly StoredCheckpoint[],
  ): Maybe<void>;
  /** The thread's stored batches holding seqs after `afterSeq`, in order. */
  after(threadId: string, afterSeq: number): Maybe<BatchRow[]>;
  /** The stored batches of one turn, in order, with when each was written. */
  turn(threadId: string, turnId: string): Maybe<BatchRow[]>;
  /**
   * Runs after a commit's frames are written and before they are delivered (SQLite commits the tick's
   * batched row writes there, so a frame never reaches a client before the rows written before it).
   */
  settle?(): void;
  /** True for a write failure that may pass (the frames wait and are tried again); absent: none does. */
  passing?(error: unknown): boolean;
}

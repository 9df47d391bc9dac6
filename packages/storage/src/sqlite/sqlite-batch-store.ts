import type Database from "better-sqlite3";
import type { BatchStore } from "../frame-log/batch-store.js";
import type { BatchRow, StoredBatch, StoredCheckpoint } from "../frame-log/thread-log.js";
import { commitBatch } from "./write-batch.js";

type Batches = readonly { batch: StoredBatch; prune: boolean }[];
type Checkpoints = readonly StoredCheckpoint[];

/**
 * `frame_batches` in a SQLite file, with statements prepared once and answers given synchronously, so a
 * group commit stays inside one event-loop turn. A thread's seq is the highest stored one
 * (`threads.last_seq` for threads from before the frame log).
 */
export class SqliteBatchStore implements BatchStore {
  private readonly loadSeq: Database.Statement<{ id: string }, { seq: number }>;
  private readonly insert: Database.Statement<[string, number, number, string, string, number]>;
  private readonly pruneOtherTurns: Database.Statement<[string, string]>;
  private readonly selectAfter: Database.Statement<[string, number], BatchRow>;
  private readonly selectTurn: Database.Statement<[string, string], BatchRow>;
  private readonly saveCheckpoint: Database.Statement<[string, string]>;
  private readonly writeAll: (batches: Batches, now: number, checkpoints: Checkpoints) => void;

  constructor(private readonly sqlite: Database.Database) {
    this.loadSeq = sqlite.prepare(
      `SELECT max(coalesce((SELECT last_seq FROM threads WHERE id = @id), 0),
                  coalesce((SELECT max(last_seq) FROM frame_batches WHERE thread_id = @id), 0)) AS seq`,
    );
    this.insert = sqlite.prepare(
      "INSERT INTO frame_batches (thread_id, first_seq, last_seq, turn_id, frames, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.pruneOtherTurns = sqlite.prepare("DELETE FROM frame_batches WHERE thread_id = ? AND turn_id <> ?");
    this.selectAfter = sqlite.prepare(
      "SELECT first_seq, frames FROM frame_batches WHERE thread_id = ? AND last_seq > ? ORDER BY first_seq",
    );
    this.selectTurn = sqlite.prepare(
      "SELECT first_seq, frames, created_at FROM frame_batches WHERE thread_id = ? AND turn_id = ? ORDER BY first_seq",
    );
    this.saveCheckpoint = sqlite.prepare("UPDATE turns SET checkpoint = ? WHERE id = ?");
    this.writeAll = sqlite.transaction((batches: Batches, now: number, checkpoints: Checkpoints) => {
      for (const { batch, prune } of batches) {
        if (prune) this.pruneOtherTurns.run(batch.threadId, batch.turnId);
        this.insert.run(batch.threadId, batch.firstSeq, batch.lastSeq, batch.turnId, batch.lines, now);
      }
      for (const c of checkpoints) this.saveCheckpoint.run(c.json, c.turnId);
    });
  }

  lastSeq(threadId: string): number {
    return this.loadSeq.get({ id: threadId })?.seq ?? 0;
  }

  write(batches: Batches, now: number, checkpoints: Checkpoints = []): void {
    this.writeAll(batches, now, checkpoints);
  }

  after(threadId: string, afterSeq: number): BatchRow[] {
    return this.selectAfter.all(threadId, afterSeq);
  }

  turn(threadId: string, turnId: string): BatchRow[] {
    return this.selectTurn.all(threadId, turnId);
  }

  settle(): void {
    // The rows written this tick (sqliteStorage batches them) commit with the frames, before any is sent.
    commitBatch(this.sqlite);
  }
}

import type pg from "pg";
import type { BatchStore } from "../frame-log/batch-store.js";
import type { BatchRow, StoredBatch, StoredCheckpoint } from "../frame-log/thread-log.js";

type Batches = readonly { batch: StoredBatch; prune: boolean }[];

/** `frame_batches` in Postgres: one transaction per commit, the batches in multi-row INSERTs. */
export class PostgresBatchStore implements BatchStore {
  constructor(private readonly pool: pg.Pool) {}

  async lastSeq(threadId: string): Promise<number> {
    const result = await this.pool.query<{ seq: string }>(
      "SELECT coalesce(max(last_seq), 0) AS seq FROM frame_batches WHERE thread_id = $1",
      [threadId],
    );
    return Number(result.rows[0]?.seq ?? 0);
  }

  async write(batches: Batches, now: number, checkpoints: readonly StoredCheckpoint[] = []): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      // A statement takes at most 65,535 parameters.
      for (let from = 0; from < batches.length; from += 5_000) {
        const params: unknown[] = [];
        const rows = batches.slice(from, from + 5_000).map(({ batch: b }) => {
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
      for (const { batch: p, prune } of batches) {
        if (!prune) continue;
        await client.query(
          "DELETE FROM frame_batches WHERE thread_id = $1 AND turn_id <> $2 AND first_seq < $3",
          [p.threadId, p.turnId, p.firstSeq],
        );
      }
      for (const c of checkpoints)
        await client.query("UPDATE turns SET checkpoint = $1 WHERE id = $2", [c.json, c.turnId]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async after(threadId: string, afterSeq: number): Promise<BatchRow[]> {
    const result = await this.pool.query<BatchRow>(
      "SELECT first_seq, frames FROM frame_batches WHERE thread_id = $1 AND last_seq > $2 ORDER BY first_seq",
      [threadId, afterSeq],
    );
    return result.rows;
  }

  async turn(threadId: string, turnId: string): Promise<BatchRow[]> {
    const result = await this.pool.query<BatchRow>(
      "SELECT first_seq, frames, created_at FROM frame_batches WHERE thread_id = $1 AND turn_id = $2 ORDER BY first_seq",
      [threadId, turnId],
    );
    return result.rows;
  }

  /**
   * A failure worth retrying: the connection (SQLSTATE class 08), the server going away (57P0x), a
   * cancelled or timed-out statement (57014), a serialization or deadlock abort (40xxx), insufficient
   * resources (53xxx), or no SQLSTATE at all (a socket error). Constraint and data errors (23xxx, 22xxx)
   * will fail again the same way.
   */
  passing(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
    return code.startsWith("08") || code.startsWith("57") || code.startsWith("40") || code.startsWith("53");
  }
}

/** Stores turns' checkpoints in one statement (a frame log outside Postgres committed their frames first). */
export async function writeCheckpoints(
  pool: pg.Pool,
  checkpoints: readonly StoredCheckpoint[],
): Promise<void> {
  if (checkpoints.length === 0) return;
  await pool.query(
    `UPDATE turns SET checkpoint = c.json FROM unnest($1::text[], $2::text[]) AS c(id, json)
     WHERE turns.id = c.id`,
    [checkpoints.map((c) => c.turnId), checkpoints.map((c) => c.json)],
  );
}

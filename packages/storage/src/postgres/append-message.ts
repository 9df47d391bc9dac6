import { type Column, getTableColumns } from "drizzle-orm";
import type pg from "pg";
import type { MessageRow } from "../contract/rows.js";
import { messages } from "./schema/index.js";

const columns = Object.entries(getTableColumns(messages)) as [string, Column][];
/** The columns passed as parameters, in order: all but seq, which the statement computes. */
const passed = columns.filter(([key]) => key !== "seq");
const ownerAt = passed.length + 1;
const at = (key: string) => `$${passed.findIndex(([k]) => k === key) + 1}`;
/**
 * One statement: read the thread's current leaf, touch the thread (the owner check, the new leaf, and
 * a row lock that queues appends to one thread from any instance), then insert the row at the next
 * seq after its parent: the one given (parameter `ownerAt + 3` true), else that leaf. Every part sees
 * the statement's snapshot: when another append committed after it, the leaf read is stale but so is
 * the seq, which the unique index refuses, and the statement runs again on a fresh snapshot.
 * Parameters are typed by cast: in an INSERT … SELECT, Postgres cannot infer them from the columns.
 */
const APPEND = `WITH previous AS (
  SELECT current_leaf_id FROM threads WHERE id = $${ownerAt}::text
), owned AS (
  UPDATE threads SET updated_at = $${ownerAt + 2}::bigint, current_leaf_id = ${at("id")}::text
  WHERE id = $${ownerAt}::text AND user_id = $${ownerAt + 1}::text RETURNING id
)
INSERT INTO messages (${columns.map(([, c]) => `"${c.name}"`).join(", ")})
SELECT ${columns
  .map(([key, c]) =>
    key === "seq"
      ? `(SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE thread_id = $${ownerAt}::text)`
      : key === "parentId"
        ? `CASE WHEN $${ownerAt + 3}::boolean THEN ${at(key)}::text ELSE (SELECT current_leaf_id FROM previous) END`
        : `${at(key)}::${c.getSQLType()}`,
  )
  .join(", ")}
FROM owned
RETURNING seq, parent_id`;

/** SQLSTATE unique_violation, on `messages_thread_seq_idx`: another append to the thread took the seq. */
const SEQ_TAKEN = "messages_thread_seq_idx";
/**
 * Appends to one thread at once (rare: a turn appends one row at a time, so only a takeover races
 * a late write): each retry is a new snapshot that sees the row that won, and each round one wins,
 * so an append retries at most once per append running beside it (bounded by the pools' sizes).
 */
const MAX_TRIES = 64;

/**
 * Stores a message row at the end of the user's thread in one round trip, after its parent (the
 * row's own when `parentGiven`, else the thread's current leaf), makes it the leaf and sets its seq
 * and parent; false when the thread is not the user's. Two appends to one thread at once: the second waits on the
 * thread's row lock, and when its snapshot (taken before the wait) misses the first one's row, the
 * unique index refuses the seq and it runs again.
 */
export async function appendMessage(
  pool: pg.Pool,
  userId: string,
  threadId: string,
  row: MessageRow,
  parentGiven: boolean,
): Promise<boolean> {
  const values: unknown[] = passed.map(([key, column]) => {
    const value = (row as Record<string, unknown>)[key];
    return value === null || value === undefined ? null : column.mapToDriverValue(value);
  });
  values.push(threadId, userId, row.createdAt, parentGiven);
  for (let tries = 1; ; tries++) {
    try {
      const result = await pool.query<{ seq: string | number; parent_id: string | null }>({
        name: "agentwire_append_message",
        text: APPEND,
        values,
      });
      const stored = result.rows[0];
      if (!stored) return false;
      row.seq = Number(stored.seq);
      row.parentId = stored.parent_id;
      return true;
    } catch (error) {
      const { code, constraint } = error as { code?: unknown; constraint?: unknown };
      if (code !== "23505" || constraint !== SEQ_TAKEN || tries >= MAX_TRIES) throw error;
    }
  }
}

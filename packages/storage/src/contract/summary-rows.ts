import type { ThreadSummaryRecord } from "./repositories.js";
import type { ThreadSummaryRow } from "./rows.js";

/** The columns a summary's upsert writes (insert and update alike): the stored fields only, a caller's object may carry more. */
export function summaryColumns(
  record: ThreadSummaryRecord,
  now: number,
): Omit<ThreadSummaryRow, "threadId" | "userId"> {
  return {
    summary: record.summary,
    throughMessageId: record.throughMessageId,
    messageCount: record.messageCount,
    updatedAt: now,
  };
}

/** Of a thread's summaries, the one through the latest message of `path` (first to leaf); undefined when none is on it. */
export function latestOnPath(
  records: readonly ThreadSummaryRecord[],
  path: readonly string[],
): ThreadSummaryRecord | undefined {
  if (records.length === 0) return undefined;
  const at = new Map(path.map((id, index) => [id, index]));
  let best: ThreadSummaryRecord | undefined;
  let bestAt = -1;
  for (const record of records) {
    const index = at.get(record.throughMessageId);
    if (index !== undefined && index > bestAt) {
      best = record;
      bestAt = index;
    }
  }
  return best;
}

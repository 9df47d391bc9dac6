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

import { and, eq } from "drizzle-orm";
import type { SummariesRepo, ThreadSummaryRecord } from "../contract/repositories.js";
import { latestOnPath, summaryColumns } from "../contract/summary-rows.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { Db } from "./open-database.js";
import { threadSummaries } from "./schema/index.js";

/** Rolling summaries of threads (one per summarized point of a branch), always through the owning user. */
export class SqliteSummariesRepo implements SummariesRepo {
  constructor(private readonly db: Db) {}

  /** The summary through the latest message of `path`, or undefined when none is or the thread is not the user's. */
  async get(
    userId: string,
    threadId: string,
    path: readonly string[],
  ): Promise<ThreadSummaryRecord | undefined> {
    const records = this.db
      .select({
        summary: threadSummaries.summary,
        throughMessageId: threadSummaries.throughMessageId,
        messageCount: threadSummaries.messageCount,
      })
      .from(threadSummaries)
      .where(and(eq(threadSummaries.threadId, threadId), eq(threadSummaries.userId, userId)))
      .all();
    return latestOnPath(records, path);
  }

  /** Creates or replaces the summary through its message, in one transaction with its owner check. */
  async put(userId: string, threadId: string, record: ThreadSummaryRecord, now = Date.now()): Promise<void> {
    this.db.transaction((tx) => {
      assertThreadOwned(tx, userId, threadId);
      const values = summaryColumns(record, now);
      tx.insert(threadSummaries)
        .values({ threadId, userId, ...values })
        .onConflictDoUpdate({
          target: [threadSummaries.threadId, threadSummaries.throughMessageId],
          set: values,
        })
        .run();
    });
  }
}

import { and, eq } from "drizzle-orm";
import type { SummariesRepo, ThreadSummaryRecord } from "../contract/repositories.js";
import { summaryColumns } from "../contract/summary-rows.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { Db } from "./open-database.js";
import { threadSummaries } from "./schema/index.js";

/** Rolling summaries of threads (one row each), always through the owning user. */
export class SqliteSummariesRepo implements SummariesRepo {
  constructor(private readonly db: Db) {}

  /** The thread's summary, or undefined when it has none or the thread is not the user's. */
  async get(userId: string, threadId: string): Promise<ThreadSummaryRecord | undefined> {
    return this.db
      .select({
        summary: threadSummaries.summary,
        throughMessageId: threadSummaries.throughMessageId,
        messageCount: threadSummaries.messageCount,
      })
      .from(threadSummaries)
      .where(and(eq(threadSummaries.threadId, threadId), eq(threadSummaries.userId, userId)))
      .get();
  }

  /** Creates or replaces the thread's summary in one transaction with its owner check. */
  async put(userId: string, threadId: string, record: ThreadSummaryRecord, now = Date.now()): Promise<void> {
    this.db.transaction((tx) => {
      assertThreadOwned(tx, userId, threadId);
      const values = summaryColumns(record, now);
      tx.insert(threadSummaries)
        .values({ threadId, userId, ...values })
        .onConflictDoUpdate({ target: threadSummaries.threadId, set: values })
        .run();
    });
  }
}

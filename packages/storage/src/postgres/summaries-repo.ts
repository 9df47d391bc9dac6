import { and, eq } from "drizzle-orm";
import type { SummariesRepo, ThreadSummaryRecord } from "../contract/repositories.js";
import { summaryColumns } from "../contract/summary-rows.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { PgDb } from "./open-postgres.js";
import { threadSummaries } from "./schema/index.js";

/** Rolling summaries of threads (one row each), always through the owning user. */
export class PgSummariesRepo implements SummariesRepo {
  constructor(private readonly db: PgDb) {}

  /** The thread's summary, or undefined when it has none or the thread is not the user's. */
  async get(userId: string, threadId: string): Promise<ThreadSummaryRecord | undefined> {
    const rows = await this.db
      .select({
        summary: threadSummaries.summary,
        throughMessageId: threadSummaries.throughMessageId,
        messageCount: threadSummaries.messageCount,
      })
      .from(threadSummaries)
      .where(and(eq(threadSummaries.threadId, threadId), eq(threadSummaries.userId, userId)))
      .limit(1);
    return rows[0];
  }

  /** Creates or replaces the thread's summary; another user's thread is not_found. */
  async put(userId: string, threadId: string, record: ThreadSummaryRecord, now = Date.now()): Promise<void> {
    await assertThreadOwned(this.db, userId, threadId);
    const values = summaryColumns(record, now);
    // The row's user is the thread's (checked above); the update is scoped to it all the same.
    await this.db
      .insert(threadSummaries)
      .values({ threadId, userId, ...values })
      .onConflictDoUpdate({
        target: threadSummaries.threadId,
        set: values,
        setWhere: eq(threadSummaries.userId, userId),
      });
  }
}

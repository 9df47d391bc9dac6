import { and, eq } from "drizzle-orm";
import type { SummariesRepo, ThreadSummaryRecord } from "../contract/repositories.js";
import { latestOnPath, summaryColumns } from "../contract/summary-rows.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { PgDb } from "./open-postgres.js";
import { threadSummaries } from "./schema/index.js";

/** Rolling summaries of threads (one per summarized point of a branch), always through the owning user. */
export class PgSummariesRepo implements SummariesRepo {
  constructor(private readonly db: PgDb) {}

  /** The summary through the latest message of `path`, or undefined when none is or the thread is not the user's. */
  async get(
    userId: string,
    threadId: string,
    path: readonly string[],
  ): Promise<ThreadSummaryRecord | undefined> {
    const records = await this.db
      .select({
        summary: threadSummaries.summary,
        throughMessageId: threadSummaries.throughMessageId,
        messageCount: threadSummaries.messageCount,
      })
      .from(threadSummaries)
      .where(and(eq(threadSummaries.threadId, threadId), eq(threadSummaries.userId, userId)));
    return latestOnPath(records, path);
  }

  /** Creates or replaces the summary through its message; another user's thread is not_found. */
  async put(userId: string, threadId: string, record: ThreadSummaryRecord, now = Date.now()): Promise<void> {
    await assertThreadOwned(this.db, userId, threadId);
    const values = summaryColumns(record, now);
    // The row's user is the thread's (checked above); the update is scoped to it all the same.
    await this.db
      .insert(threadSummaries)
      .values({ threadId, userId, ...values })
      .onConflictDoUpdate({
        target: [threadSummaries.threadId, threadSummaries.throughMessageId],
        set: values,
        setWhere: eq(threadSummaries.userId, userId),
      });
  }
}

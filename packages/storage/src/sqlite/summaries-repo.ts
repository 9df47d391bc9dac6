import { NotFoundError } from "@agentwire/protocol";
import { and, eq } from "drizzle-orm";
import type { SummariesRepo, ThreadSummaryRecord } from "../repositories.js";
import type { Db } from "./open-database.js";
import { threadSummaries, threads } from "./schema/index.js";

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
      const owned = tx
        .select({ id: threads.id })
        .from(threads)
        .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
        .get();
      if (!owned) throw new NotFoundError("thread");
      const values = { ...pick(record), updatedAt: now };
      tx.insert(threadSummaries)
        .values({ threadId, userId, ...values })
        .onConflictDoUpdate({ target: threadSummaries.threadId, set: values })
        .run();
    });
  }
}

/** The stored fields only (a caller's object may carry more). */
function pick(record: ThreadSummaryRecord): ThreadSummaryRecord {
  return {
    summary: record.summary,
    throughMessageId: record.throughMessageId,
    messageCount: record.messageCount,
  };
}

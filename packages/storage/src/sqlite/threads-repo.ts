import type { ThreadSummary } from "@agentwire-chat/protocol";
import { and, desc, eq, sql } from "drizzle-orm";
import type { ThreadRow, ThreadsRepo } from "../contract/repositories.js";
import { newThreadRow, toThreadSummary } from "../contract/thread-rows.js";
import type { Db } from "./open-database.js";
import { preparedInsert } from "./prepared-insert.js";
import { queuedMessages, threads } from "./schema/index.js";

/** A thread row without `last_seq`, which only the frame log reads (see `schema/threads.ts`). */
const threadColumns = {
  id: threads.id,
  userId: threads.userId,
  title: threads.title,
  createdAt: threads.createdAt,
  updatedAt: threads.updatedAt,
  currentLeafId: threads.currentLeafId,
};

/** Threads, always scoped by the owning user: another user's thread reads as missing. */
export class SqliteThreadsRepo implements ThreadsRepo {
  // On every turn's start: prepared once, so a turn does not rebuild and re-prepare them.
  private readonly getStatement;
  private readonly createStatement;

  constructor(private readonly db: Db) {
    const p = sql.placeholder;
    this.getStatement = db
      .select(threadColumns)
      .from(threads)
      .where(and(eq(threads.id, p("threadId")), eq(threads.userId, p("userId"))))
      .prepare();
    this.createStatement = preparedInsert(db, threads);
  }

  /** The user's threads, most recently updated first. */
  async list(userId: string): Promise<ThreadSummary[]> {
    return this.db
      .select({
        ...threadColumns,
        queued:
          sql<number>`(SELECT count(*) FROM ${queuedMessages} WHERE ${queuedMessages.threadId} = ${threads.id})`.mapWith(
            Number,
          ),
      })
      .from(threads)
      .where(eq(threads.userId, userId))
      .orderBy(desc(threads.updatedAt), desc(threads.createdAt))
      .all()
      .map(({ queued, ...row }) => toThreadSummary(row, queued));
  }

  /** The thread if it exists and belongs to the user. */
  async get(userId: string, threadId: string): Promise<ThreadRow | undefined> {
    return this.getStatement.get({ threadId, userId });
  }

  /** Creates a thread for the user. */
  async create(userId: string, title: string, now = Date.now(), id?: string): Promise<ThreadRow> {
    const row = newThreadRow(userId, title, now, id);
    this.createStatement.run({ ...row, lastSeq: 0 });
    return row;
  }

  /** Renames a thread; false when the user has no such thread. */
  async rename(userId: string, threadId: string, title: string, now = Date.now()): Promise<boolean> {
    return (
      this.db
        .update(threads)
        .set({ title, updatedAt: now })
        .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
        .run().changes > 0
    );
  }

  /** Deletes a thread and, by cascade, everything of it (messages, queue, turns, tool grants...); false when not the user's. */
  async delete(userId: string, threadId: string): Promise<boolean> {
    return (
      this.db
        .delete(threads)
        .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
        .run().changes > 0
    );
  }
}

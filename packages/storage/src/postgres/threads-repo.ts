import type { ThreadSummary } from "@agentwire-chat/protocol";
import { and, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { ThreadRow, ThreadsRepo } from "../contract/repositories.js";
import { newThreadRow, toThreadSummary } from "../contract/thread-rows.js";
import type { PgDb } from "./open-postgres.js";
import { queuedMessages, threads } from "./schema/index.js";

/** Threads, always scoped by the owning user: another user's thread reads as missing. */
export class PgThreadsRepo implements ThreadsRepo {
  constructor(private readonly db: PgDb) {}

  /** The user's threads, most recently updated first. */
  async list(userId: string): Promise<ThreadSummary[]> {
    const rows = await this.db
      .select({
        ...getTableColumns(threads),
        queued:
          sql<number>`(SELECT count(*) FROM ${queuedMessages} WHERE ${queuedMessages.threadId} = ${threads.id})`.mapWith(
            Number,
          ),
      })
      .from(threads)
      .where(eq(threads.userId, userId))
      .orderBy(desc(threads.updatedAt), desc(threads.createdAt));
    return rows.map(({ queued, ...row }) => toThreadSummary(row, queued));
  }

  /** The thread if it exists and belongs to the user. */
  async get(userId: string, threadId: string): Promise<ThreadRow | undefined> {
    const rows = await this.db
      .select()
      .from(threads)
      .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
      .limit(1);
    return rows[0];
  }

  /** Creates a thread for the user. */
  async create(userId: string, title: string, now = Date.now(), id?: string): Promise<ThreadRow> {
    const row = newThreadRow(userId, title, now, id);
    await this.db.insert(threads).values(row);
    return row;
  }

  /** Renames a thread; false when the user has no such thread. */
  async rename(userId: string, threadId: string, title: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .update(threads)
      .set({ title, updatedAt: now })
      .where(and(eq(threads.id, threadId), eq(threads.userId, userId)));
    return (result.rowCount ?? 0) > 0;
  }

  /** Deletes a thread and, by cascade, everything of it (messages, queue, turns, tool grants...); false when not the user's. */
  async delete(userId: string, threadId: string): Promise<boolean> {
    const result = await this.db
      .delete(threads)
      .where(and(eq(threads.id, threadId), eq(threads.userId, userId)));
    return (result.rowCount ?? 0) > 0;
  }
}

import type { Transaction } from "better-sqlite3";
import { and, asc, count, eq, sql } from "drizzle-orm";
import { byStartOrder, newQueuedRow } from "../contract/queued-rows.js";
import type { NewQueuedMessage, QueuedMessageRow, QueuedMessagesRepo } from "../contract/repositories.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { Db } from "./open-database.js";
import { queuedMessages, threads } from "./schema/index.js";
import { commitBatch } from "./write-batch.js";

/** Messages waiting for their thread's next turn (or to steer the running one), always through the owning user. */
export class SqliteQueuedMessagesRepo implements QueuedMessagesRepo {
  private readonly enqueueInTransaction: Transaction<
    (
      userId: string,
      threadId: string,
      row: QueuedMessageRow,
      max: number,
    ) => { row: QueuedMessageRow; position: number } | "full"
  >;

  // Asked at every turn's end (does a queued message follow?): prepared once.
  private readonly countStatement;

  constructor(private readonly db: Db) {
    const p = sql.placeholder;
    this.countStatement = db
      .select({ n: count() })
      .from(queuedMessages)
      .where(and(eq(queuedMessages.threadId, p("threadId")), eq(queuedMessages.userId, p("userId"))))
      .prepare();
    // The owner check, the bound, the seq, the insert and the position in one transaction (SQLite's
    // writer lock: two enqueues cannot both pass the bound).
    this.enqueueInTransaction = db.$client.transaction(
      (userId: string, threadId: string, row: QueuedMessageRow, max: number) => {
        assertThreadOwned(db, userId, threadId);
        const state = db
          .select({ n: count(), last: sql<number>`coalesce(max(${queuedMessages.seq}), 0)` })
          .from(queuedMessages)
          .where(eq(queuedMessages.threadId, threadId))
          .get();
        if ((state?.n ?? 0) >= max) return "full";
        row.seq = (state?.last ?? 0) + 1;
        db.insert(queuedMessages).values(row).run();
        const ahead = db
          .select({ n: count() })
          .from(queuedMessages)
          .where(
            and(
              eq(queuedMessages.threadId, threadId),
              sql`(${queuedMessages.priority} < ${row.priority} OR (${queuedMessages.priority} = ${row.priority} AND ${queuedMessages.seq} < ${row.seq}))`,
            ),
          )
          .get();
        return { row, position: (ahead?.n ?? 0) + 1 };
      },
    );
  }

  /** Stores the message in the thread's queue with its 1-based position; "full" at `max` (nothing stored). */
  async enqueue(
    userId: string,
    threadId: string,
    message: NewQueuedMessage,
    max: number,
    now = Date.now(),
  ): Promise<{ row: QueuedMessageRow; position: number } | "full"> {
    const stored = this.enqueueInTransaction.immediate(
      userId,
      threadId,
      newQueuedRow(userId, threadId, message, now),
      max,
    );
    // Acknowledged at once (`message_queued`), not with the tick's frames: durable before that.
    commitBatch(this.db.$client);
    return stored;
  }

  /** The thread's queued messages in start order. */
  async list(userId: string, threadId: string): Promise<QueuedMessageRow[]> {
    return this.db
      .select()
      .from(queuedMessages)
      .where(and(eq(queuedMessages.threadId, threadId), eq(queuedMessages.userId, userId)))
      .orderBy(asc(queuedMessages.priority), asc(queuedMessages.seq))
      .all();
  }

  /** How many messages wait on the user's thread. */
  async count(userId: string, threadId: string): Promise<number> {
    return this.countStatement.get({ threadId, userId })?.n ?? 0;
  }

  /** Removes one queued message; false when the user's thread holds no such message. */
  async remove(userId: string, threadId: string, messageId: string): Promise<boolean> {
    const removed =
      this.db
        .delete(queuedMessages)
        .where(
          and(
            eq(queuedMessages.id, messageId),
            eq(queuedMessages.threadId, threadId),
            eq(queuedMessages.userId, userId),
          ),
        )
        .run().changes > 0;
    // A cancel is acknowledged at once (`queued_message_cancelled`): durable before that.
    commitBatch(this.db.$client);
    return removed;
  }

  /** Removes and returns the thread's steer messages, oldest first, in one statement. */
  async takeSteers(userId: string, threadId: string): Promise<QueuedMessageRow[]> {
    const taken = this.db
      .delete(queuedMessages)
      .where(
        and(
          eq(queuedMessages.threadId, threadId),
          eq(queuedMessages.userId, userId),
          eq(queuedMessages.mode, "steer"),
        ),
      )
      .returning()
      .all();
    return taken.sort(byStartOrder);
  }

  /** Puts a removed row back as it was; nothing when its thread is gone or the row is back already. */
  async restore(row: QueuedMessageRow): Promise<void> {
    this.db.transaction((tx) => {
      const owned = tx
        .select({ id: threads.id })
        .from(threads)
        .where(and(eq(threads.id, row.threadId), eq(threads.userId, row.userId)))
        .get();
      if (owned) tx.insert(queuedMessages).values(row).onConflictDoNothing().run();
    });
  }

  /** Every thread with a queued message, system-wide. */
  async queuedThreads(): Promise<Array<{ userId: string; threadId: string }>> {
    return this.db
      .selectDistinct({ userId: queuedMessages.userId, threadId: queuedMessages.threadId })
      .from(queuedMessages)
      .all();
  }
}

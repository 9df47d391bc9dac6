import { NotFoundError } from "@agentwire-chat/protocol";
import { and, asc, count, eq, sql } from "drizzle-orm";
import { byStartOrder, newQueuedRow } from "../contract/queued-rows.js";
import type { NewQueuedMessage, QueuedMessageRow, QueuedMessagesRepo } from "../contract/repositories.js";
import type { PgDb } from "./open-postgres.js";
import { queuedMessages, threads } from "./schema/index.js";

/** Messages waiting for their thread's next turn (or to steer the running one), always through the owning user. */
export class PgQueuedMessagesRepo implements QueuedMessagesRepo {
  constructor(private readonly db: PgDb) {}

  /**
   * Stores the message in the thread's queue with its 1-based position; "full" at `max` (nothing
   * stored). One transaction holding the thread's row lock: enqueues to one thread from any instance
   * take turns, so two cannot both pass the bound or take one seq.
   */
  async enqueue(
    userId: string,
    threadId: string,
    message: NewQueuedMessage,
    max: number,
    now = Date.now(),
  ): Promise<{ row: QueuedMessageRow; position: number } | "full"> {
    const row = newQueuedRow(userId, threadId, message, now);
    return this.db.transaction(async (tx) => {
      const owned = await tx
        .select({ id: threads.id })
        .from(threads)
        .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
        .for("update");
      if (owned.length === 0) throw new NotFoundError("thread");
      const [state] = await tx
        .select({
          n: count(),
          last: sql<number>`coalesce(max(${queuedMessages.seq}), 0)`.mapWith(Number),
        })
        .from(queuedMessages)
        .where(eq(queuedMessages.threadId, threadId));
      if ((state?.n ?? 0) >= max) return "full";
      row.seq = (state?.last ?? 0) + 1;
      await tx.insert(queuedMessages).values(row);
      const [ahead] = await tx
        .select({ n: count() })
        .from(queuedMessages)
        .where(
          and(
            eq(queuedMessages.threadId, threadId),
            sql`(${queuedMessages.priority} < ${row.priority} OR (${queuedMessages.priority} = ${row.priority} AND ${queuedMessages.seq} < ${row.seq}))`,
          ),
        );
      return { row, position: (ahead?.n ?? 0) + 1 };
    });
  }

  /** The thread's queued messages in start order. */
  async list(userId: string, threadId: string): Promise<QueuedMessageRow[]> {
    return this.db
      .select()
      .from(queuedMessages)
      .where(and(eq(queuedMessages.threadId, threadId), eq(queuedMessages.userId, userId)))
      .orderBy(asc(queuedMessages.priority), asc(queuedMessages.seq));
  }

  /** How many messages wait on the user's thread. */
  async count(userId: string, threadId: string): Promise<number> {
    const [result] = await this.db
      .select({ n: count() })
      .from(queuedMessages)
      .where(and(eq(queuedMessages.threadId, threadId), eq(queuedMessages.userId, userId)));
    return result?.n ?? 0;
  }

  /** Removes one queued message; false when the user's thread holds no such message. */
  async remove(userId: string, threadId: string, messageId: string): Promise<boolean> {
    const result = await this.db
      .delete(queuedMessages)
      .where(
        and(
          eq(queuedMessages.id, messageId),
          eq(queuedMessages.threadId, threadId),
          eq(queuedMessages.userId, userId),
        ),
      );
    return (result.rowCount ?? 0) > 0;
  }

  /** Removes and returns the thread's steer messages, oldest first: one DELETE … RETURNING, so each row goes to one taker. */
  async takeSteers(userId: string, threadId: string): Promise<QueuedMessageRow[]> {
    const taken = await this.db
      .delete(queuedMessages)
      .where(
        and(
          eq(queuedMessages.threadId, threadId),
          eq(queuedMessages.userId, userId),
          eq(queuedMessages.mode, "steer"),
        ),
      )
      .returning();
    return taken.sort(byStartOrder);
  }

  /** Puts a removed row back as it was; nothing when its thread is gone or the row is back already. */
  async restore(row: QueuedMessageRow): Promise<void> {
    await this.db.transaction(async (tx) => {
      const owned = await tx
        .select({ id: threads.id })
        .from(threads)
        .where(and(eq(threads.id, row.threadId), eq(threads.userId, row.userId)))
        .for("share");
      if (owned.length > 0) await tx.insert(queuedMessages).values(row).onConflictDoNothing();
    });
  }

  /** Every thread with a queued message, system-wide. */
  async queuedThreads(): Promise<Array<{ userId: string; threadId: string }>> {
    return this.db
      .selectDistinct({ userId: queuedMessages.userId, threadId: queuedMessages.threadId })
      .from(queuedMessages);
  }
}

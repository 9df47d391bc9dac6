import type { StoredMessage } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import { and, asc, eq, sql } from "drizzle-orm";
import { newMessageRow, toStoredMessage } from "../contract/message-rows.js";
import type { MessageRow, MessagesRepo, NewMessage } from "../contract/repositories.js";
import type { Db } from "./open-database.js";
import { preparedInsert } from "./prepared-insert.js";
import { messages, threads } from "./schema/index.js";

/** Messages of a thread, always through the owning user. */
export class SqliteMessagesRepo implements MessagesRepo {
  // Every turn lists the history and appends rows: the statements are prepared once.
  private readonly ownedStatement;
  private readonly listStatement;
  private readonly seqOfStatement;
  private readonly listAfterStatement;
  private readonly nextSeqStatement;
  private readonly insertStatement;
  private readonly touchStatement;
  private readonly appendInTransaction: (userId: string, threadId: string, row: MessageRow) => void;

  constructor(db: Db) {
    const p = sql.placeholder;
    this.ownedStatement = db
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, p("threadId")), eq(threads.userId, p("userId"))))
      .prepare();
    this.listStatement = db
      .select()
      .from(messages)
      .where(and(eq(messages.threadId, p("threadId")), eq(messages.userId, p("userId"))))
      .orderBy(asc(messages.seq))
      .prepare();
    this.seqOfStatement = db
      .select({ seq: messages.seq })
      .from(messages)
      .where(
        and(eq(messages.id, p("id")), eq(messages.threadId, p("threadId")), eq(messages.userId, p("userId"))),
      )
      .prepare();
    this.listAfterStatement = db
      .select()
      .from(messages)
      .where(
        and(
          eq(messages.threadId, p("threadId")),
          eq(messages.userId, p("userId")),
          sql`${messages.seq} > ${p("seq")}`,
        ),
      )
      .orderBy(asc(messages.seq))
      .prepare();
    // The owner check and the next seq in one read: null when the thread is not the user's.
    this.nextSeqStatement = db.$client.prepare<[string, string, string], { seq: number }>(
      `SELECT (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE thread_id = ?)
           AS seq FROM threads WHERE id = ? AND user_id = ?`,
    );
    this.insertStatement = preparedInsert(db, messages);
    this.touchStatement = db.$client.prepare<[number, string]>(
      "UPDATE threads SET updated_at = ? WHERE id = ?",
    );
    // One transaction per row: the owner check, the next seq and the insert cannot interleave.
    this.appendInTransaction = db.$client.transaction((userId: string, threadId: string, row: MessageRow) => {
      const next = this.nextSeqStatement.get(threadId, threadId, userId);
      if (!next) throw new NotFoundError("thread");
      row.seq = next.seq;
      this.insertStatement.run(row);
      this.touchStatement.run(row.createdAt, threadId);
    });
  }

  /** The thread's rows in order; throws not_found when the thread is not the user's. */
  async list(userId: string, threadId: string): Promise<StoredMessage[]> {
    if (!this.ownedStatement.get({ threadId, userId })) throw new NotFoundError("thread");
    return this.listStatement.all({ threadId, userId }).map(toStoredMessage);
  }

  /** The rows after `afterId` in order; undefined when the user's thread has no such row. */
  async listAfter(userId: string, threadId: string, afterId: string): Promise<StoredMessage[] | undefined> {
    const at = this.seqOfStatement.get({ id: afterId, threadId, userId });
    if (!at) return undefined;
    return this.listAfterStatement.all({ threadId, userId, seq: at.seq }).map(toStoredMessage);
  }

  /** Stores a row at the end of the thread and returns it as the protocol's StoredMessage. */
  async append(
    userId: string,
    threadId: string,
    message: NewMessage,
    now = Date.now(),
  ): Promise<StoredMessage> {
    const row = newMessageRow(userId, threadId, message, now);
    this.appendInTransaction(userId, threadId, row);
    return toStoredMessage(row);
  }
}

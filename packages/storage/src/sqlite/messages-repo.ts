import type { StoredMessage } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import { and, asc, eq, sql } from "drizzle-orm";
import { messageTree, newestLeafOf, type TreeLink } from "../contract/branch-path.js";
import { readBranch } from "../contract/branch-read.js";
import { newMessageRow, toStoredMessage } from "../contract/message-rows.js";
import type { Branch, BranchQuery, MessageRow, MessagesRepo, NewMessage } from "../contract/repositories.js";
import type { Db } from "./open-database.js";
import { preparedInsert } from "./prepared-insert.js";
import { messages, threads } from "./schema/index.js";

/** Messages of a thread, always through the owning user. */
export class SqliteMessagesRepo implements MessagesRepo {
  // Every turn reads its branch and appends rows: the statements are prepared once.
  private readonly ownedStatement;
  private readonly listStatement;
  private readonly linksStatement;
  private readonly rowsStatement;
  private readonly getStatement;
  private readonly setLeafStatement;
  private readonly nextSeqStatement;
  private readonly insertStatement;
  private readonly touchStatement;
  private readonly appendInTransaction: (
    userId: string,
    threadId: string,
    row: MessageRow,
    parentGiven: boolean,
  ) => void;

  constructor(db: Db) {
    const p = sql.placeholder;
    this.ownedStatement = db
      .select({ id: threads.id, currentLeafId: threads.currentLeafId })
      .from(threads)
      .where(and(eq(threads.id, p("threadId")), eq(threads.userId, p("userId"))))
      .prepare();
    this.listStatement = db
      .select()
      .from(messages)
      .where(and(eq(messages.threadId, p("threadId")), eq(messages.userId, p("userId"))))
      .orderBy(asc(messages.seq))
      .prepare();
    // The light links of a thread's tree: what finding a branch needs, without the rows' bulk.
    this.linksStatement = db.$client.prepare<[string], TreeLink>(
      "SELECT id, parent_id AS parentId, seq FROM messages WHERE thread_id = ?",
    );
    // The full rows of some messages of a thread, by id (a JSON array: one parameter however many).
    this.rowsStatement = db
      .select()
      .from(messages)
      .where(
        and(
          eq(messages.threadId, p("threadId")),
          sql`${messages.id} IN (SELECT value FROM json_each(${p("ids")}))`,
        ),
      )
      .prepare();
    this.getStatement = db
      .select()
      .from(messages)
      .where(
        and(eq(messages.id, p("id")), eq(messages.threadId, p("threadId")), eq(messages.userId, p("userId"))),
      )
      .prepare();
    this.setLeafStatement = db.$client.prepare<
      [{ leaf: string | null; now: number; threadId: string; userId: string }]
    >(
      `UPDATE threads SET current_leaf_id = @leaf, updated_at = @now WHERE id = @threadId AND user_id = @userId
         AND (@leaf IS NULL OR EXISTS (SELECT 1 FROM messages WHERE id = @leaf AND thread_id = @threadId))`,
    );
    // The owner check, the next seq and the current leaf in one read: none when the thread is not the user's.
    this.nextSeqStatement = db.$client.prepare<
      [string, string, string],
      { seq: number; leaf: string | null }
    >(
      `SELECT (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE thread_id = ?) AS seq,
           current_leaf_id AS leaf FROM threads WHERE id = ? AND user_id = ?`,
    );
    this.insertStatement = preparedInsert(db, messages);
    this.touchStatement = db.$client.prepare<[number, string, string]>(
      "UPDATE threads SET updated_at = ?, current_leaf_id = ? WHERE id = ?",
    );
    // One transaction per row: the owner check, the next seq, the parent, the insert and the new leaf cannot interleave.
    this.appendInTransaction = db.$client.transaction(
      (userId: string, threadId: string, row: MessageRow, parentGiven: boolean) => {
        const next = this.nextSeqStatement.get(threadId, threadId, userId);
        if (!next) throw new NotFoundError("thread");
        row.seq = next.seq;
        if (!parentGiven) row.parentId = next.leaf;
        this.insertStatement.run(row);
        this.touchStatement.run(row.createdAt, row.id, threadId);
      },
    );
  }

  /** Every row of every branch in seq order; throws not_found when the thread is not the user's. */
  async list(userId: string, threadId: string): Promise<StoredMessage[]> {
    if (!this.ownedStatement.get({ threadId, userId })) throw new NotFoundError("thread");
    return this.listStatement.all({ threadId, userId }).map((row) => toStoredMessage(row));
  }

  /** One branch of the thread (see BranchQuery); throws not_found when the thread is not the user's. */
  async branch(userId: string, threadId: string, query: BranchQuery = {}): Promise<Branch | undefined> {
    const thread = this.ownedStatement.get({ threadId, userId });
    if (!thread) throw new NotFoundError("thread");
    return readBranch(this.linksStatement.all(threadId), thread.currentLeafId, query, (ids) =>
      this.rowsStatement.all({ threadId, ids: JSON.stringify(ids) }),
    );
  }

  /** One row of the user's thread, or undefined. */
  async get(userId: string, threadId: string, messageId: string): Promise<StoredMessage | undefined> {
    const row = this.getStatement.get({ id: messageId, threadId, userId });
    return row && toStoredMessage(row);
  }

  /** The newest leaf under the message; undefined when the user's thread has no such message. */
  async newestLeaf(userId: string, threadId: string, messageId: string): Promise<string | undefined> {
    if (!this.ownedStatement.get({ threadId, userId })) return undefined;
    return newestLeafOf(messageTree(this.linksStatement.all(threadId)), messageId)?.id;
  }

  /** Makes the message (null: none) the current leaf; false when the user has no such thread or message. */
  async setCurrentLeaf(
    userId: string,
    threadId: string,
    messageId: string | null,
    now = Date.now(),
  ): Promise<boolean> {
    return this.setLeafStatement.run({ leaf: messageId, now, threadId, userId }).changes > 0;
  }

  /** Stores a row after its parent (given, or the current leaf), makes it the leaf and returns it. */
  async append(
    userId: string,
    threadId: string,
    message: NewMessage,
    now = Date.now(),
  ): Promise<StoredMessage> {
    const row = newMessageRow(userId, threadId, message, now);
    this.appendInTransaction(userId, threadId, row, message.parentId !== undefined);
    return toStoredMessage(row);
  }
}

import type { StoredMessage } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { messageTree, newestLeafOf, type TreeLink } from "../contract/branch-path.js";
import { readBranch } from "../contract/branch-read.js";
import { newMessageRow, toStoredMessage } from "../contract/message-rows.js";
import type { Branch, BranchQuery, MessagesRepo, NewMessage } from "../contract/repositories.js";
import { appendMessage } from "./append-message.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { PgDb } from "./open-postgres.js";
import { messages, threads } from "./schema/index.js";

/** One read of a thread's tree: its owner check and current leaf, and every message's link (none: no message). */
const LINKS = `SELECT t.current_leaf_id, m.id, m.parent_id, m.seq
  FROM threads t LEFT JOIN messages m ON m.thread_id = t.id
  WHERE t.id = $1 AND t.user_id = $2`;
type LinkRow = {
  current_leaf_id: string | null;
  id: string | null;
  parent_id: string | null;
  seq: string | null;
};

/** Messages of a thread, always through the owning user. */
export class PgMessagesRepo implements MessagesRepo {
  constructor(private readonly db: PgDb) {}

  /** Every row of every branch in seq order; throws not_found when the thread is not the user's. */
  async list(userId: string, threadId: string): Promise<StoredMessage[]> {
    await assertThreadOwned(this.db, userId, threadId);
    const rows = await this.db
      .select()
      .from(messages)
      .where(and(eq(messages.threadId, threadId), eq(messages.userId, userId)))
      .orderBy(asc(messages.seq));
    return rows.map((row) => toStoredMessage(row));
  }

  /** The thread's tree links and current leaf in one round trip; undefined when the thread is not the user's. */
  private async links(
    userId: string,
    threadId: string,
  ): Promise<{ currentLeafId: string | null; links: TreeLink[] } | undefined> {
    const result = await this.db.$client.query<LinkRow>({
      name: "agentwire_message_links",
      text: LINKS,
      values: [threadId, userId],
    });
    const first = result.rows[0];
    if (!first) return undefined;
    const links: TreeLink[] = [];
    for (const row of result.rows)
      if (row.id !== null) links.push({ id: row.id, parentId: row.parent_id, seq: Number(row.seq) });
    return { currentLeafId: first.current_leaf_id, links };
  }

  /** One branch of the thread (see BranchQuery); throws not_found when the thread is not the user's. */
  async branch(userId: string, threadId: string, query: BranchQuery = {}): Promise<Branch | undefined> {
    const thread = await this.links(userId, threadId);
    if (!thread) throw new NotFoundError("thread");
    return readBranch(thread.links, thread.currentLeafId, query, (ids) =>
      this.db
        .select()
        .from(messages)
        .where(and(eq(messages.threadId, threadId), inArray(messages.id, ids))),
    );
  }

  /** One row of the user's thread, or undefined. */
  async get(userId: string, threadId: string, messageId: string): Promise<StoredMessage | undefined> {
    const rows = await this.db
      .select()
      .from(messages)
      .where(and(eq(messages.id, messageId), eq(messages.threadId, threadId), eq(messages.userId, userId)))
      .limit(1);
    return rows[0] && toStoredMessage(rows[0]);
  }

  /** The newest leaf under the message; undefined when the user's thread has no such message. */
  async newestLeaf(userId: string, threadId: string, messageId: string): Promise<string | undefined> {
    const thread = await this.links(userId, threadId);
    return thread && newestLeafOf(messageTree(thread.links), messageId)?.id;
  }

  /** Makes the message (null: none) the current leaf; false when the user has no such thread or message. */
  async setCurrentLeaf(
    userId: string,
    threadId: string,
    messageId: string | null,
    now = Date.now(),
  ): Promise<boolean> {
    const result = await this.db
      .update(threads)
      .set({ currentLeafId: messageId, updatedAt: now })
      .where(
        and(
          eq(threads.id, threadId),
          eq(threads.userId, userId),
          messageId === null
            ? undefined
            : sql`EXISTS (SELECT 1 FROM ${messages} WHERE ${messages.id} = ${messageId} AND ${messages.threadId} = ${threadId})`,
        ),
      );
    return (result.rowCount ?? 0) > 0;
  }

  /** Stores a row after its parent (given, or the current leaf), makes it the leaf and returns it (see appendMessage). */
  async append(
    userId: string,
    threadId: string,
    message: NewMessage,
    now = Date.now(),
  ): Promise<StoredMessage> {
    const row = newMessageRow(userId, threadId, message, now);
    if (!(await appendMessage(this.db.$client, userId, threadId, row, message.parentId !== undefined)))
      throw new NotFoundError("thread");
    return toStoredMessage(row);
  }
}

import type { StoredMessage } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import { and, asc, eq, gt } from "drizzle-orm";
import { newMessageRow, toStoredMessage } from "../contract/message-rows.js";
import type { MessagesRepo, NewMessage } from "../contract/repositories.js";
import { appendMessage } from "./append-message.js";
import { assertThreadOwned } from "./assert-thread-owned.js";
import type { PgDb } from "./open-postgres.js";
import { messages } from "./schema/index.js";

/** Messages of a thread, always through the owning user. */
export class PgMessagesRepo implements MessagesRepo {
  constructor(private readonly db: PgDb) {}

  /** The thread's rows in order; throws not_found when the thread is not the user's. */
  async list(userId: string, threadId: string): Promise<StoredMessage[]> {
    await assertThreadOwned(this.db, userId, threadId);
    const rows = await this.db
      .select()
      .from(messages)
      .where(and(eq(messages.threadId, threadId), eq(messages.userId, userId)))
      .orderBy(asc(messages.seq));
    return rows.map(toStoredMessage);
  }

  /** The rows after `afterId` in order; undefined when the user's thread has no such row. */
  async listAfter(userId: string, threadId: string, afterId: string): Promise<StoredMessage[] | undefined> {
    const at = await this.db
      .select({ seq: messages.seq })
      .from(messages)
      .where(and(eq(messages.id, afterId), eq(messages.threadId, threadId), eq(messages.userId, userId)))
      .limit(1);
    if (at.length === 0) return undefined;
    const rows = await this.db
      .select()
      .from(messages)
      .where(
        and(eq(messages.threadId, threadId), eq(messages.userId, userId), gt(messages.seq, at[0]?.seq ?? 0)),
      )
      .orderBy(asc(messages.seq));
    return rows.map(toStoredMessage);
  }

  /** Stores a row at the end of the thread and returns it as the protocol's StoredMessage (see appendMessage). */
  async append(
    userId: string,
    threadId: string,
    message: NewMessage,
    now = Date.now(),
  ): Promise<StoredMessage> {
    const row = newMessageRow(userId, threadId, message, now);
    if (!(await appendMessage(this.db.$client, userId, threadId, row))) throw new NotFoundError("thread");
    return toStoredMessage(row);
  }
}

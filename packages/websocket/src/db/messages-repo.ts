import { randomUUID } from "node:crypto";
import type { StoredMessage } from "@agentwire/protocol";
import { and, asc, eq, sql } from "drizzle-orm";
import { NotFoundError } from "../errors/agentwire-error.js";
import type { Db } from "./open-database.js";
import { messages, threads } from "./schema/index.js";

type MessageRow = typeof messages.$inferSelect;

/** What a caller supplies to store a row; id, seq and created_at are assigned here. */
export type NewMessage = Pick<MessageRow, "role" | "status"> &
  Partial<
    Pick<
      MessageRow,
      | "turnId"
      | "content"
      | "toolCalls"
      | "toolCallId"
      | "isError"
      | "provider"
      | "model"
      | "executionTree"
      | "usage"
    >
  >;

/** Messages of a thread, always through the owning user. */
export class MessagesRepo {
  constructor(private readonly db: Db) {}

  /** The thread's rows in order; throws not_found when the thread is not the user's. */
  list(userId: string, threadId: string): StoredMessage[] {
    this.assertThread(userId, threadId);
    return this.db
      .select()
      .from(messages)
      .where(and(eq(messages.threadId, threadId), eq(messages.userId, userId)))
      .orderBy(asc(messages.seq))
      .all()
      .map(toStoredMessage);
  }

  /** Stores a row at the end of the thread and returns it as the protocol's StoredMessage. */
  append(userId: string, threadId: string, message: NewMessage, now = Date.now()): StoredMessage {
    return this.db.transaction((tx) => {
      const owned = tx
        .select({ id: threads.id })
        .from(threads)
        .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
        .get();
      if (!owned) throw new NotFoundError("thread");
      const next = tx
        .select({ seq: sql<number>`coalesce(max(${messages.seq}), 0) + 1` })
        .from(messages)
        .where(eq(messages.threadId, threadId))
        .get();
      const row: MessageRow = {
        id: randomUUID(),
        threadId,
        userId,
        turnId: message.turnId ?? null,
        seq: next?.seq ?? 1,
        role: message.role,
        content: message.content ?? null,
        toolCalls: message.toolCalls ?? null,
        toolCallId: message.toolCallId ?? null,
        isError: message.isError ?? null,
        provider: message.provider ?? null,
        model: message.model ?? null,
        executionTree: message.executionTree ?? null,
        usage: message.usage ?? null,
        status: message.status,
        createdAt: now,
      };
      tx.insert(messages).values(row).run();
      tx.update(threads).set({ updatedAt: now }).where(eq(threads.id, threadId)).run();
      return toStoredMessage(row);
    });
  }

  private assertThread(userId: string, threadId: string): void {
    const owned = this.db
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, threadId), eq(threads.userId, userId)))
      .get();
    if (!owned) throw new NotFoundError("thread");
  }
}

/** A message row as the protocol's StoredMessage (absent optional fields left out, not null). */
export function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    thread_id: row.threadId,
    role: row.role,
    content: row.content,
    ...(row.toolCalls != null && { tool_calls: row.toolCalls }),
    ...(row.toolCallId != null && { tool_call_id: row.toolCallId }),
    ...(row.isError != null && { is_error: row.isError }),
    ...(row.provider != null && { provider: row.provider }),
    ...(row.model != null && { model: row.model }),
    ...(row.executionTree != null && { execution_tree: row.executionTree }),
    ...(row.usage != null && { usage: row.usage }),
    status: row.status,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

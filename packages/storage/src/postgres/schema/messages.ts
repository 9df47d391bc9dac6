import type { MessageRole, MessageStatus } from "@agentwire/protocol";
import { bigint, boolean, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

/**
 * One stored row of a thread; the Postgres twin of `schema/messages.ts`. The JSON columns (content,
 * tool_calls, execution_tree, usage) are text holding JSON, as in SQLite: the repositories serialise.
 */
export const messages = pgTable(
  "messages",
  {
    id: text().primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    turnId: text("turn_id").references(() => turns.id, { onDelete: "set null" }),
    seq: bigint({ mode: "number" }).notNull(),
    role: text().$type<MessageRole>().notNull(),
    content: text(),
    toolCalls: text("tool_calls"),
    toolCallId: text("tool_call_id"),
    isError: boolean("is_error"),
    provider: text(),
    model: text(),
    executionTree: text("execution_tree"),
    usage: text(),
    status: text().$type<MessageStatus>().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("messages_thread_seq_idx").on(t.threadId, t.seq)],
);

import type {
  ExecutionTreeSnapshot,
  MessageContent,
  MessageRole,
  MessageStatus,
  StoredToolCall,
  TurnUsage,
} from "@agentwire-chat/protocol";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

/**
 * One stored row of a thread; `seq` orders rows within the thread, `parent_id` places it in the thread's
 * tree of branches (null: a first message). A parent always has a lower seq than its children.
 */
export const messages = sqliteTable(
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
    seq: integer().notNull(),
    role: text().$type<MessageRole>().notNull(),
    content: text({ mode: "json" }).$type<MessageContent | null>(),
    toolCalls: text("tool_calls", { mode: "json" }).$type<StoredToolCall[]>(),
    toolCallId: text("tool_call_id"),
    isError: integer("is_error", { mode: "boolean" }),
    provider: text(),
    model: text(),
    executionTree: text("execution_tree", { mode: "json" }).$type<ExecutionTreeSnapshot>(),
    usage: text({ mode: "json" }).$type<TurnUsage>(),
    status: text().$type<MessageStatus>().notNull(),
    createdAt: integer("created_at").notNull(),
    // No index on it: branches are read from a thread's links (by its thread_id index) and placed in
    // memory, so one would only add a page to every message's commit.
    parentId: text("parent_id"),
  },
  (t) => [uniqueIndex("messages_thread_seq_idx").on(t.threadId, t.seq)],
);

import type {
  ExecutionTreeSnapshot,
  MessageContent,
  MessageRole,
  MessageStatus,
  StoredToolCall,
  TurnUsage,
} from "@agentwire-chat/protocol";
import { bigint, boolean, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { jsonText } from "./json-text.js";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

/** One stored row of a thread; the Postgres twin of `schema/messages.ts` (JSON columns as text, as there). */
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
    content: jsonText().$type<MessageContent | null>(),
    toolCalls: jsonText("tool_calls").$type<StoredToolCall[]>(),
    toolCallId: text("tool_call_id"),
    isError: boolean("is_error"),
    provider: text(),
    model: text(),
    executionTree: jsonText("execution_tree").$type<ExecutionTreeSnapshot>(),
    usage: jsonText().$type<TurnUsage>(),
    status: text().$type<MessageStatus>().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    // No index on it: branches are read from a thread's links (by its thread_id index) and placed in
    // memory, so one would only add a page to every message's commit.
    parentId: text("parent_id"),
  },
  (t) => [uniqueIndex("messages_thread_seq_idx").on(t.threadId, t.seq)],
);

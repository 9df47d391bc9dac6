import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/**
 * A thread's rolling summary: what the summarizer made of its older messages. It stands for every
 * message up to and including `through_message_id` (`message_count` of them); later ones are sent verbatim.
 */
export const threadSummaries = sqliteTable("thread_summaries", {
  threadId: text("thread_id")
    .primaryKey()
    .references(() => threads.id, { onDelete: "cascade" }),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  summary: text().notNull(),
  throughMessageId: text("through_message_id").notNull(),
  messageCount: integer("message_count").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/**
 * A rolling summary: what the summarizer made of a branch's older messages. It stands for every
 * message of the branch up to and including `through_message_id` (`message_count` of them), so every
 * branch through that message shares it; a thread has one per summarized point. Later ones are sent verbatim.
 */
export const threadSummaries = sqliteTable(
  "thread_summaries",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    summary: text().notNull(),
    throughMessageId: text("through_message_id").notNull(),
    messageCount: integer("message_count").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.throughMessageId] })],
);

import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** A rolling summary through one message of a thread; the Postgres twin of `schema/thread-summaries.ts`. */
export const threadSummaries = pgTable(
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
    messageCount: bigint("message_count", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.throughMessageId] })],
);

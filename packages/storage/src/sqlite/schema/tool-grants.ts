import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/**
 * A tool the user allowed for the rest of a thread (`allow_for_thread`): its gated calls in that thread
 * run without asking. Lives as long as the thread (deleted with it), on every instance.
 */
export const toolGrants = sqliteTable(
  "tool_grants",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    toolName: text("tool_name").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.toolName] })],
);

import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** A tool allowed for the rest of a thread; the Postgres twin of `schema/tool-grants.ts`. */
export const toolGrants = pgTable(
  "tool_grants",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    toolName: text("tool_name").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.toolName] })],
);

import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users.js";

/**
 * A conversation. `last_seq` is the last frame seq of a thread from before the frame log (frames were
 * then counted here); the frame log reads it once, and nothing writes it any more.
 */
export const threads = sqliteTable(
  "threads",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text().notNull(),
    lastSeq: integer("last_seq").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** The last message of the current branch (no foreign key: a message's thread owns it already). */
    currentLeafId: text("current_leaf_id"),
  },
  (t) => [index("threads_user_updated_idx").on(t.userId, t.updatedAt)],
);

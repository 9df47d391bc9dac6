import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./users.js";

/** A conversation; the Postgres twin of `schema/threads.ts` (without `last_seq`: no thread here predates the frame log). */
export const threads = pgTable(
  "threads",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    currentLeafId: text("current_leaf_id"),
  },
  (t) => [index("threads_user_updated_idx").on(t.userId, t.updatedAt)],
);

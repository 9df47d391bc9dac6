import { bigint, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users.js";

/** Per-user key/value memory; the Postgres twin of `schema/memories.ts`. */
export const memories = pgTable(
  "memories",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("memories_user_key_idx").on(t.userId, t.key)],
);

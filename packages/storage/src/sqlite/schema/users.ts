import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A user is identified by a short name (`local` when AUTH_MODE=none). */
export const users = sqliteTable("users", {
  id: text().primaryKey(),
  createdAt: integer("created_at").notNull(),
});

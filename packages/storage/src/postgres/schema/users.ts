import { bigint, pgTable, text } from "drizzle-orm/pg-core";

/** A user, identified by a short name; the Postgres twin of `schema/users.ts`. */
export const users = pgTable("users", {
  id: text().primaryKey(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

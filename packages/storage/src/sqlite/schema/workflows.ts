import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users.js";

/** A saved workflow graph; the graph's shape belongs to the workflow runner, stored here as JSON. */
export const workflows = sqliteTable(
  "workflows",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    graph: text({ mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("workflows_user_idx").on(t.userId)],
);

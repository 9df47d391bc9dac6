import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { jsonText } from "./json-text.js";
import { users } from "./users.js";

/** A saved workflow graph (JSON as text); the Postgres twin of `schema/workflows.ts`. */
export const workflows = pgTable(
  "workflows",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    graph: jsonText().$type<Record<string, unknown>>().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("workflows_user_idx").on(t.userId)],
);

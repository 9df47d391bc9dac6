import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users.js";

/** API tokens, stored as sha256 hashes only; the token itself is shown once at creation. */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_tokens_user_idx").on(t.userId)],
);

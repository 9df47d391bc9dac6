import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./users.js";

/** API tokens, stored as sha256 hashes only; the Postgres twin of `schema/api-tokens.ts`. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("api_tokens_user_idx").on(t.userId)],
);

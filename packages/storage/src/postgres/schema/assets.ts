import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** A generated file whose bytes live on disk at `path`; the Postgres twin of `schema/assets.ts`. */
export const assets = pgTable(
  "assets",
  {
    id: text().primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    mimeType: text("mime_type").notNull(),
    bytes: bigint({ mode: "number" }).notNull(),
    path: text().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("assets_user_idx").on(t.userId), index("assets_thread_idx").on(t.threadId)],
);

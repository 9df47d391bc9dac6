import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/**
 * A generated file (the media route: an image or a speech clip). The bytes live on disk at `path` (under the
 * server's data directory), served by `GET /api/assets/:id` to the owner only.
 */
export const assets = sqliteTable(
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
    bytes: integer().notNull(),
    path: text().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("assets_user_idx").on(t.userId), index("assets_thread_idx").on(t.threadId)],
);

import type { OnBusy } from "@agentwire-chat/protocol";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { QueuedChatMessage } from "../../contract/rows.js";
import { threads } from "./threads.js";
import { users } from "./users.js";

/**
 * A message sent while a turn ran, waiting for the next turn (or to steer the running one); not on a
 * branch until it starts. Runs by `priority` (0: an interrupt's), then `seq` (per thread, arrival order).
 */
export const queuedMessages = sqliteTable(
  "queued_messages",
  {
    id: text().primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mode: text().$type<Exclude<OnBusy, "reject">>().notNull(),
    priority: integer().notNull(),
    seq: integer().notNull(),
    data: text({ mode: "json" }).$type<QueuedChatMessage>().notNull(),
    requestId: text("request_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("queued_messages_thread_idx").on(t.threadId)],
);

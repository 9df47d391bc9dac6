import type { OnBusy } from "@agentwire-chat/protocol";
import { bigint, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import type { QueuedChatMessage } from "../../contract/rows.js";
import { jsonText } from "./json-text.js";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** A message waiting for its thread's next turn; the Postgres twin of `schema/queued-messages.ts`. */
export const queuedMessages = pgTable(
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
    data: jsonText().$type<QueuedChatMessage>().notNull(),
    requestId: text("request_id"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("queued_messages_thread_idx").on(t.threadId)],
);

import { ScratchpadKind, ScratchpadStatus } from "@agentwire-chat/protocol";
import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { jsonText } from "./json-text.js";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** One scratchpad item; the Postgres twin of `schema/scratchpad-items.ts`. related_ids is JSON as text, as there. */
export const scratchpadItems = pgTable(
  "scratchpad_items",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    id: text().notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text({ enum: ScratchpadKind.options as [ScratchpadKind, ...ScratchpadKind[]] }).notNull(),
    title: text().notNull(),
    details: text(),
    status: text({ enum: ScratchpadStatus.options as [ScratchpadStatus, ...ScratchpadStatus[]] }).notNull(),
    relatedIds: jsonText("related_ids").$type<string[]>(),
    position: bigint({ mode: "number" }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.id] }),
    index("scratchpad_items_user_idx").on(t.userId, t.threadId),
  ],
);

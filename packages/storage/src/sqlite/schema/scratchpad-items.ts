import { ScratchpadKind, ScratchpadStatus } from "@agentwire-chat/protocol";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** One item of a thread's agent scratchpad; ids are per thread, items are never deleted. */
export const scratchpadItems = sqliteTable(
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
    relatedIds: text("related_ids", { mode: "json" }).$type<string[]>(),
    /** Insertion order within the thread. */
    position: integer().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.id] }),
    index("scratchpad_items_user_idx").on(t.userId, t.threadId),
  ],
);

import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";

/**
 * The frame log on disk: the frames one group commit wrote for one turn of a thread, `first_seq` to
 * `last_seq` without gaps, as JSON lines exactly as they were sent. A thread keeps the batches of its
 * last turn (older ones are pruned when a new turn's first frame is committed).
 */
export const frameBatches = sqliteTable(
  "frame_batches",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    firstSeq: integer("first_seq").notNull(),
    lastSeq: integer("last_seq").notNull(),
    turnId: text("turn_id")
      .notNull()
      .references(() => turns.id, { onDelete: "cascade" }),
    frames: text().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.firstSeq] })],
);

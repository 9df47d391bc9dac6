import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";

/** The frames one group commit wrote for one turn, as JSON lines; the Postgres twin of `schema/frame-batches.ts`. */
export const frameBatches = pgTable(
  "frame_batches",
  {
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    firstSeq: bigint("first_seq", { mode: "number" }).notNull(),
    lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
    turnId: text("turn_id")
      .notNull()
      .references(() => turns.id, { onDelete: "cascade" }),
    frames: text().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.firstSeq] })],
);

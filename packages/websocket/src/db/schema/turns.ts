import type { TurnUsage } from "@agentwire/protocol";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

export const turnStatuses = [
  "running",
  "waiting_user",
  "complete",
  "stopped",
  "budget_exceeded",
  "iteration_limit",
  "error",
  "interrupted",
] as const;
export type TurnStatus = (typeof turnStatuses)[number];

/** One chat turn; `suspended_state` holds what a turn waiting on the user needs to continue. */
export const turns = sqliteTable(
  "turns",
  {
    id: text().primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text({ enum: turnStatuses }).notNull(),
    usage: text({ mode: "json" }).$type<TurnUsage>(),
    error: text(),
    suspendedState: text("suspended_state", { mode: "json" }).$type<unknown>(),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at"),
    lastSeq: integer("last_seq").notNull().default(0),
  },
  (t) => [index("turns_thread_idx").on(t.threadId, t.startedAt)],
);

import { TurnStatus, type TurnUsage } from "@agentwire-chat/protocol";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { SuspendedTurn } from "../../contract/suspended-turn.js";
import { threads } from "./threads.js";
import { users } from "./users.js";

export type { TurnStatus };

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
    status: text({ enum: TurnStatus.options as [TurnStatus, ...TurnStatus[]] }).notNull(),
    usage: text({ mode: "json" }).$type<TurnUsage>(),
    error: text(),
    suspendedState: text("suspended_state", { mode: "json" }).$type<SuspendedTurn>(),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at"),
    /** Who answers the turn: restart recovery stores the interrupted answer under their names. */
    provider: text(),
    model: text(),
    /** The `request_id` of the chat_message that started it: a client that lost the reply finds its thread by it. */
    requestId: text("request_id"),
    /**
     * The latest checkpoint of a running turn (JSON, written by the frame log with the frames that led
     * to it; see TurnCheckpoint): restart recovery continues the turn from it.
     */
    checkpoint: text({ mode: "json" }).$type<unknown>(),
    /** How many times restart recovery continued the turn (TURN_MAX_RECOVERIES bounds it). */
    recoveries: integer().notNull().default(0),
  },
  (t) => [
    index("turns_thread_idx").on(t.threadId, t.startedAt),
    index("turns_request_idx").on(t.userId, t.requestId),
  ],
);

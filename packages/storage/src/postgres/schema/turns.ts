import { TurnStatus, type TurnUsage } from "@agentwire-chat/protocol";
import { bigint, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import type { SuspendedTurn } from "../../contract/suspended-turn.js";
import { jsonText } from "./json-text.js";
import { threads } from "./threads.js";
import { users } from "./users.js";

export type { TurnStatus };

/** One chat turn; the Postgres twin of `schema/turns.ts`. usage and suspended_state are JSON as text, as there. */
export const turns = pgTable(
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
    usage: jsonText().$type<TurnUsage>(),
    error: text(),
    suspendedState: jsonText("suspended_state").$type<SuspendedTurn>(),
    startedAt: bigint("started_at", { mode: "number" }).notNull(),
    endedAt: bigint("ended_at", { mode: "number" }),
    provider: text(),
    model: text(),
    /** The `request_id` of the chat_message that started it: a client that lost the reply finds its thread by it. */
    requestId: text("request_id"),
    /** The latest checkpoint of a running turn (JSON as text, as in SQLite; see TurnCheckpoint). */
    checkpoint: jsonText().$type<unknown>(),
    /** How many times recovery continued the turn (TURN_MAX_RECOVERIES bounds it). */
    recoveries: integer().notNull().default(0),
  },
  (t) => [
    index("turns_thread_idx").on(t.threadId, t.startedAt),
    index("turns_request_idx").on(t.userId, t.requestId),
  ],
);

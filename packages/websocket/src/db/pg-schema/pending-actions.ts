import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { pendingActionKinds, pendingActionStatuses } from "../schema/pending-actions.js";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

// The value lists are the SQLite schema's, so the two dialects cannot disagree on them.
export { pendingActionKinds, pendingActionStatuses };
export type { PendingActionKind, PendingActionStatus } from "../schema/pending-actions.js";

/**
 * A question, a tool approval or a client tool call the turn waits on; the Postgres twin of
 * `schema/pending-actions.ts`. request, response and suspended_state are text holding JSON.
 */
export const pendingActions = pgTable(
  "pending_actions",
  {
    id: text().primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    turnId: text("turn_id")
      .notNull()
      .references(() => turns.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text({ enum: pendingActionKinds }).notNull(),
    toolCallId: text("tool_call_id"),
    request: text().notNull(),
    response: text(),
    suspendedState: text("suspended_state"),
    status: text({ enum: pendingActionStatuses }).notNull().default("pending"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    resolvedAt: bigint("resolved_at", { mode: "number" }),
  },
  (t) => [index("pending_actions_thread_idx").on(t.threadId, t.status)],
);

import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

export const pendingActionKinds = ["question", "approval", "client_tool"] as const;
export type PendingActionKind = (typeof pendingActionKinds)[number];
export const pendingActionStatuses = ["pending", "resolved", "expired"] as const;
export type PendingActionStatus = (typeof pendingActionStatuses)[number];

/**
 * A question (ask_user), a tool approval or a client tool call the turn waits on.
 * `request` is what was asked, `response` the user's reply, `suspended_state` what the turn needs to go on.
 */
export const pendingActions = sqliteTable(
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
    request: text({ mode: "json" }).$type<unknown>().notNull(),
    response: text({ mode: "json" }).$type<unknown>(),
    suspendedState: text("suspended_state", { mode: "json" }).$type<unknown>(),
    status: text({ enum: pendingActionStatuses }).notNull().default("pending"),
    createdAt: integer("created_at").notNull(),
    resolvedAt: integer("resolved_at"),
  },
  (t) => [index("pending_actions_thread_idx").on(t.threadId, t.status)],
);

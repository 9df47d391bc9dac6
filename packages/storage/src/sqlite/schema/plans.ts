import { type ChatContext, type Plan, type PlanExecutionMode, PlanStatus } from "@agentwire-chat/protocol";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { users } from "./users.js";

export type { PlanStatus };
/** Where a plan is (the protocol's vocabulary): waiting for the user's decision, running, or how it ended. */
export const PLAN_STATUSES = PlanStatus.options;

/** A plan create_plan made; a draft waits here (`pending_review`) for the user's plan_decision. */
export const plans = sqliteTable(
  "plans",
  {
    id: text().primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The create_plan call that made it. */
    toolCallId: text("tool_call_id").notNull(),
    executionMode: text("execution_mode").$type<PlanExecutionMode>().notNull(),
    plan: text({ mode: "json" }).$type<Plan>().notNull(),
    /** The context the plan was made in: an approved draft runs its steps with that scope's tools. */
    chatContext: text("chat_context", { mode: "json" }).$type<ChatContext>().notNull(),
    status: text({ enum: PLAN_STATUSES as unknown as [PlanStatus, ...PlanStatus[]] }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("plans_thread_idx").on(t.threadId, t.createdAt)],
);

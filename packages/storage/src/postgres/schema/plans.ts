import type { ChatContext, Plan, PlanExecutionMode } from "@agentwire-chat/protocol";
import { PlanStatus } from "@agentwire-chat/protocol";
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { jsonText } from "./json-text.js";
import { threads } from "./threads.js";
import { users } from "./users.js";

/** A plan create_plan made; the Postgres twin of `schema/plans.ts` (JSON columns as text, as there). */
export const plans = pgTable(
  "plans",
  {
    id: text().primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    toolCallId: text("tool_call_id").notNull(),
    executionMode: text("execution_mode").$type<PlanExecutionMode>().notNull(),
    plan: jsonText().$type<Plan>().notNull(),
    chatContext: jsonText("chat_context").$type<ChatContext>().notNull(),
    status: text({ enum: PlanStatus.options as [PlanStatus, ...PlanStatus[]] }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("plans_thread_idx").on(t.threadId, t.createdAt)],
);

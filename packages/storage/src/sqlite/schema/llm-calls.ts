import type { LlmOperation } from "@agentwire-chat/protocol";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

/** One row per provider call: tokens, cost, latency and error, for accounting. */
export const llmCalls = sqliteTable(
  "llm_calls",
  {
    id: text().primaryKey(),
    turnId: text("turn_id")
      .notNull()
      .references(() => turns.id, { onDelete: "cascade" }),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text().notNull(),
    model: text().notNull(),
    /** What the call was for (`LlmOperation`); rows from before this column are the root's `turn`. */
    operation: text().$type<LlmOperation>().notNull().default("turn"),
    depth: integer().notNull().default(0),
    /** The tree node whose call this was (a run_subtask, plan_step or tool call id); null at the root. */
    parentId: text("parent_id"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    cacheReadTokens: integer("cache_read_tokens").notNull().default(0),
    cacheWriteTokens: integer("cache_write_tokens").notNull().default(0),
    reasoningTokens: integer("reasoning_tokens").notNull().default(0),
    costUsd: real("cost_usd").notNull().default(0),
    costKnown: integer("cost_known", { mode: "boolean" }).notNull().default(false),
    latencyMs: integer("latency_ms").notNull(),
    error: text(),
    createdAt: integer("created_at").notNull(),
  },
  // Spend limits sum a user's calls since a time and a thread's calls.
  (t) => [
    index("llm_calls_turn_idx").on(t.turnId),
    index("llm_calls_user_time_idx").on(t.userId, t.createdAt),
    index("llm_calls_thread_idx").on(t.threadId),
  ],
);

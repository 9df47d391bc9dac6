import type { LlmOperation } from "@agentwire-chat/protocol";
import { bigint, boolean, doublePrecision, index, pgTable, text } from "drizzle-orm/pg-core";
import { threads } from "./threads.js";
import { turns } from "./turns.js";
import { users } from "./users.js";

/** One row per provider call, for accounting; the Postgres twin of `schema/llm-calls.ts`. */
export const llmCalls = pgTable(
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
    depth: bigint({ mode: "number" }).notNull().default(0),
    parentId: text("parent_id"),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    cacheReadTokens: bigint("cache_read_tokens", { mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull().default(0),
    reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    costKnown: boolean("cost_known").notNull().default(false),
    latencyMs: bigint("latency_ms", { mode: "number" }).notNull(),
    error: text(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  // Spend limits sum a user's calls since a time and a thread's calls.
  (t) => [
    index("llm_calls_turn_idx").on(t.turnId),
    index("llm_calls_user_time_idx").on(t.userId, t.createdAt),
    index("llm_calls_thread_idx").on(t.threadId),
  ],
);

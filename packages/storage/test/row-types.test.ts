import { getTableName, is, Table } from "drizzle-orm";
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  ApiTokenRow,
  AssetRow,
  FrameBatchRow,
  LlmCallRow,
  MemoryRow,
  MessageRow,
  PlanRow,
  QueuedMessageRow,
  ScratchpadRow,
  ThreadRow,
  ThreadSummaryRow,
  ToolGrantRow,
  TurnRow,
  UserRow,
  WorkflowRow,
} from "../src/contract/rows.js";
import * as pg from "../src/postgres/schema/index.js";
import * as sqlite from "../src/sqlite/schema/index.js";

// Checked by tsc (CI runs it over packages/*/test): a column whose type drifts from the contract's
// row, on either dialect, fails the typecheck. At run time the assertions are no-ops.
describe("each dialect's schema selects the contract's rows", () => {
  it("users, api_tokens", () => {
    expectTypeOf<typeof sqlite.users.$inferSelect>().toEqualTypeOf<UserRow>();
    expectTypeOf<typeof pg.users.$inferSelect>().toEqualTypeOf<UserRow>();
    expectTypeOf<typeof sqlite.apiTokens.$inferSelect>().toEqualTypeOf<ApiTokenRow>();
    expectTypeOf<typeof pg.apiTokens.$inferSelect>().toEqualTypeOf<ApiTokenRow>();
  });

  it("threads, but for SQLite's legacy last_seq", () => {
    // SQLite keeps threads.last_seq for threads from before the frame log (its frame log reads it
    // once); Postgres never had such threads and has no such column. The contract's row leaves it out.
    expectTypeOf<Omit<typeof sqlite.threads.$inferSelect, "lastSeq">>().toEqualTypeOf<ThreadRow>();
    expectTypeOf<typeof sqlite.threads.$inferSelect>().toHaveProperty("lastSeq").toEqualTypeOf<number>();
    expectTypeOf<typeof pg.threads.$inferSelect>().toEqualTypeOf<ThreadRow>();
  });

  it("messages, turns, llm_calls", () => {
    expectTypeOf<typeof sqlite.messages.$inferSelect>().toEqualTypeOf<MessageRow>();
    expectTypeOf<typeof pg.messages.$inferSelect>().toEqualTypeOf<MessageRow>();
    expectTypeOf<typeof sqlite.turns.$inferSelect>().toEqualTypeOf<TurnRow>();
    expectTypeOf<typeof pg.turns.$inferSelect>().toEqualTypeOf<TurnRow>();
    expectTypeOf<typeof sqlite.llmCalls.$inferSelect>().toEqualTypeOf<LlmCallRow>();
    expectTypeOf<typeof pg.llmCalls.$inferSelect>().toEqualTypeOf<LlmCallRow>();
  });

  it("workflows, assets, memories, plans, queued_messages", () => {
    expectTypeOf<typeof sqlite.workflows.$inferSelect>().toEqualTypeOf<WorkflowRow>();
    expectTypeOf<typeof pg.workflows.$inferSelect>().toEqualTypeOf<WorkflowRow>();
    expectTypeOf<typeof sqlite.assets.$inferSelect>().toEqualTypeOf<AssetRow>();
    expectTypeOf<typeof pg.assets.$inferSelect>().toEqualTypeOf<AssetRow>();
    expectTypeOf<typeof sqlite.memories.$inferSelect>().toEqualTypeOf<MemoryRow>();
    expectTypeOf<typeof pg.memories.$inferSelect>().toEqualTypeOf<MemoryRow>();
    expectTypeOf<typeof sqlite.plans.$inferSelect>().toEqualTypeOf<PlanRow>();
    expectTypeOf<typeof pg.plans.$inferSelect>().toEqualTypeOf<PlanRow>();
    expectTypeOf<typeof sqlite.queuedMessages.$inferSelect>().toEqualTypeOf<QueuedMessageRow>();
    expectTypeOf<typeof pg.queuedMessages.$inferSelect>().toEqualTypeOf<QueuedMessageRow>();
  });

  it("scratchpad_items, thread_summaries, tool_grants, frame_batches", () => {
    expectTypeOf<typeof sqlite.scratchpadItems.$inferSelect>().toEqualTypeOf<ScratchpadRow>();
    expectTypeOf<typeof pg.scratchpadItems.$inferSelect>().toEqualTypeOf<ScratchpadRow>();
    expectTypeOf<typeof sqlite.threadSummaries.$inferSelect>().toEqualTypeOf<ThreadSummaryRow>();
    expectTypeOf<typeof pg.threadSummaries.$inferSelect>().toEqualTypeOf<ThreadSummaryRow>();
    expectTypeOf<typeof sqlite.toolGrants.$inferSelect>().toEqualTypeOf<ToolGrantRow>();
    expectTypeOf<typeof pg.toolGrants.$inferSelect>().toEqualTypeOf<ToolGrantRow>();
    expectTypeOf<typeof sqlite.frameBatches.$inferSelect>().toEqualTypeOf<FrameBatchRow>();
    expectTypeOf<typeof pg.frameBatches.$inferSelect>().toEqualTypeOf<FrameBatchRow>();
  });

  it("and no table is left out of these checks", () => {
    const checked = [
      "api_tokens",
      "assets",
      "frame_batches",
      "llm_calls",
      "memories",
      "messages",
      "plans",
      "queued_messages",
      "scratchpad_items",
      "thread_summaries",
      "threads",
      "tool_grants",
      "turns",
      "users",
      "workflows",
    ];
    const tablesOf = (schema: Record<string, unknown>) =>
      Object.values(schema)
        .filter((value): value is Table => is(value, Table))
        .map((table) => getTableName(table))
        .sort();
    expect(tablesOf(sqlite)).toEqual(checked);
    expect(tablesOf(pg)).toEqual(checked);
  });
});

import type { LlmCallRecord } from "@agentwire-chat/agents";
import { and, asc, eq, gte, sql } from "drizzle-orm";
import { newLlmCallRow } from "../contract/llm-call-rows.js";
import type { LlmCallRow, LlmCallsRepo, NodeCostRow } from "../contract/repositories.js";
import type { Db } from "./open-database.js";
import { preparedInsert } from "./prepared-insert.js";
import { llmCalls, turns } from "./schema/index.js";

/** The provider-call ledger: one row per call at any depth, always through the owning user. */
export class SqliteLlmCallsRepo implements LlmCallsRepo {
  // One row per provider call of every turn: prepared once.
  private readonly recordStatement;

  constructor(private readonly db: Db) {
    this.recordStatement = preparedInsert(db, llmCalls);
  }

  /** Records one provider call of a turn. */
  async record(
    userId: string,
    threadId: string,
    turnId: string,
    call: LlmCallRecord,
    now = Date.now(),
  ): Promise<void> {
    this.recordStatement.run(newLlmCallRow(userId, threadId, turnId, call, now));
  }

  /** The calls of the user's turn, oldest first. */
  async forTurn(userId: string, turnId: string): Promise<LlmCallRow[]> {
    return this.db
      .select()
      .from(llmCalls)
      .where(and(eq(llmCalls.turnId, turnId), eq(llmCalls.userId, userId)))
      .orderBy(asc(llmCalls.createdAt))
      .all();
  }

  /** Each turn's spend per parent node: the thread's turns (by their index), then their calls (by turn). */
  async costByNode(userId: string, threadId: string): Promise<NodeCostRow[]> {
    return this.db
      .select({
        turnId: llmCalls.turnId,
        parentId: llmCalls.parentId,
        operation: llmCalls.operation,
        inputTokens: sql<number>`sum(${llmCalls.inputTokens})`.mapWith(Number),
        outputTokens: sql<number>`sum(${llmCalls.outputTokens})`.mapWith(Number),
        costUsd: sql<number>`sum(${llmCalls.costUsd})`.mapWith(Number),
        costKnown: sql<boolean>`min(${llmCalls.costKnown})`.mapWith(Boolean),
        llmCalls: sql<number>`count(*)`.mapWith(Number),
      })
      .from(turns)
      .innerJoin(llmCalls, eq(llmCalls.turnId, turns.id))
      .where(and(eq(turns.threadId, threadId), eq(turns.userId, userId), eq(llmCalls.userId, userId)))
      .groupBy(turns.startedAt, llmCalls.turnId, llmCalls.parentId, llmCalls.operation)
      .orderBy(asc(turns.startedAt), asc(llmCalls.turnId), asc(sql`min(${llmCalls.createdAt})`))
      .all();
  }

  /** The user's priced spend since a time, or on one thread. */
  async spend(userId: string, scope: { since: number } | { threadId: string }): Promise<number> {
    const where =
      "since" in scope
        ? and(eq(llmCalls.userId, userId), gte(llmCalls.createdAt, scope.since))
        : and(eq(llmCalls.userId, userId), eq(llmCalls.threadId, scope.threadId));
    const row = this.db
      .select({ cost: sql<number>`coalesce(sum(${llmCalls.costUsd}), 0)`.mapWith(Number) })
      .from(llmCalls)
      .where(where)
      .get();
    return row?.cost ?? 0;
  }
}

import type { LlmCallRecord } from "@agentwire-chat/agents";
import { and, asc, eq, gte, sql } from "drizzle-orm";
import { newLlmCallRow } from "../contract/llm-call-rows.js";
import type { LlmCallRow, LlmCallsRepo, NodeCostRow } from "../contract/repositories.js";
import type { PgDb } from "./open-postgres.js";
import { llmCalls, turns } from "./schema/index.js";

/** Rows per INSERT: a statement takes at most 65,535 parameters, a ledger row 19. */
const ROWS_PER_INSERT = 1_000;

/** A ledger row waiting for the next insert, and its caller. */
type PendingCall = { row: LlmCallRow; stored: () => void; failed: (error: unknown) => void };

/**
 * The provider-call ledger: one row per call at any depth, always through the owning user. Rows
 * recorded in one event-loop turn (by every running turn) go in one multi-row INSERT: a server with
 * a thousand turns records thousands of calls, and one statement each cost a round trip each.
 */
export class PgLlmCallsRepo implements LlmCallsRepo {
  private pending: PendingCall[] = [];

  constructor(private readonly db: PgDb) {}

  /** Records one provider call of a turn; resolves once its row is stored. */
  record(
    userId: string,
    threadId: string,
    turnId: string,
    call: LlmCallRecord,
    now = Date.now(),
  ): Promise<void> {
    const row = newLlmCallRow(userId, threadId, turnId, call, now);
    return new Promise((stored, failed) => {
      if (this.pending.push({ row, stored, failed }) === 1) setImmediate(() => this.insertPending());
    });
  }

  private insertPending(): void {
    const pending = this.pending;
    this.pending = [];
    for (let from = 0; from < pending.length; from += ROWS_PER_INSERT)
      void this.insert(pending.slice(from, from + ROWS_PER_INSERT));
  }

  private async insert(batch: PendingCall[]): Promise<void> {
    try {
      await this.db.insert(llmCalls).values(batch.map((p) => p.row));
      for (const p of batch) p.stored();
    } catch (error) {
      if (batch.length === 1) return batch[0]?.failed(error);
      // One row's failure (its turn deleted meanwhile) is its caller's alone: each alone, once.
      await Promise.all(batch.map((p) => this.db.insert(llmCalls).values(p.row).then(p.stored, p.failed)));
    }
  }

  /** The calls of the user's turn, oldest first. */
  async forTurn(userId: string, turnId: string): Promise<LlmCallRow[]> {
    return this.db
      .select()
      .from(llmCalls)
      .where(and(eq(llmCalls.turnId, turnId), eq(llmCalls.userId, userId)))
      .orderBy(asc(llmCalls.createdAt));
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
        costKnown: sql<boolean>`bool_and(${llmCalls.costKnown})`.mapWith(Boolean),
        llmCalls: sql<number>`count(*)`.mapWith(Number),
      })
      .from(turns)
      .innerJoin(llmCalls, eq(llmCalls.turnId, turns.id))
      .where(and(eq(turns.threadId, threadId), eq(turns.userId, userId), eq(llmCalls.userId, userId)))
      .groupBy(turns.startedAt, llmCalls.turnId, llmCalls.parentId, llmCalls.operation)
      .orderBy(asc(turns.startedAt), asc(llmCalls.turnId), asc(sql`min(${llmCalls.createdAt})`));
  }

  /** The user's priced spend since a time, or on one thread. */
  async spend(userId: string, scope: { since: number } | { threadId: string }): Promise<number> {
    const where =
      "since" in scope
        ? and(eq(llmCalls.userId, userId), gte(llmCalls.createdAt, scope.since))
        : and(eq(llmCalls.userId, userId), eq(llmCalls.threadId, scope.threadId));
    const rows = await this.db
      .select({ cost: sql<number>`coalesce(sum(${llmCalls.costUsd}), 0)`.mapWith(Number) })
      .from(llmCalls)
      .where(where);
    return rows[0]?.cost ?? 0;
  }
}

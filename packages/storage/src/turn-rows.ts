import { randomUUID } from "node:crypto";
import type { TurnStart } from "./repositories.js";
import type { TurnRow } from "./rows.js";

/** A running turn on the user's thread, under the id the caller claimed or a fresh one. */
export function newTurnRow(userId: string, threadId: string, who: TurnStart, now: number): TurnRow {
  return {
    id: who.id ?? randomUUID(),
    threadId,
    userId,
    status: "running",
    usage: null,
    error: null,
    suspendedState: null,
    startedAt: now,
    endedAt: null,
    provider: who.provider ?? null,
    model: who.model ?? null,
    requestId: who.requestId ?? null,
    checkpoint: who.checkpoint ?? null,
    recoveries: 0,
  };
}

/** The columns a turn's start writes; the others (usage, error, suspension, end) keep the table's defaults. */
export function turnStartColumns(
  row: TurnRow,
): Pick<
  TurnRow,
  "id" | "threadId" | "userId" | "status" | "startedAt" | "provider" | "model" | "requestId" | "checkpoint"
> {
  return {
    id: row.id,
    threadId: row.threadId,
    userId: row.userId,
    status: row.status,
    startedAt: row.startedAt,
    provider: row.provider,
    model: row.model,
    requestId: row.requestId,
    checkpoint: row.checkpoint,
  };
}

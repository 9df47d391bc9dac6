import { randomUUID } from "node:crypto";
import type { TurnStart } from "./repositories.js";
import type { TurnRow } from "./rows.js";

/**
 * A running turn on the user's thread, under the id the caller claimed or a fresh one: the whole row
 * both dialects insert (the columns a start leaves empty hold what the table's defaults would).
 */
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

import { randomUUID } from "node:crypto";
import type { LlmCallRecord } from "@agentwire-chat/agents";
import type { LlmCallRow } from "./rows.js";

/** The ledger row of one provider call of the user's turn, with a fresh id; latency is stored in whole ms. */
export function newLlmCallRow(
  userId: string,
  threadId: string,
  turnId: string,
  call: LlmCallRecord,
  now: number,
): LlmCallRow {
  return {
    id: randomUUID(),
    turnId,
    threadId,
    userId,
    provider: call.provider,
    model: call.model,
    operation: call.operation,
    depth: call.depth,
    parentId: call.parentId,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
    cacheReadTokens: call.cacheReadTokens,
    cacheWriteTokens: call.cacheWriteTokens,
    reasoningTokens: call.reasoningTokens,
    costUsd: call.costUsd,
    costKnown: call.costKnown,
    latencyMs: Math.round(call.latencyMs),
    error: call.error ?? null,
    createdAt: now,
  };
}

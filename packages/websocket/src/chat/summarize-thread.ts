import {
  type CompressionJob,
  type ContextSettings,
  type LlmCallRecord,
  type LoopContext,
  type LoopEvent,
  type ModelSettings,
  type Provider,
  type ProviderRegistry,
  type SideChannel,
  summarizeHistory,
} from "@agentwire-chat/agents";
import type { Repositories } from "@agentwire-chat/storage";
import type { FastifyBaseLogger } from "fastify";
import { recordLateCall } from "./record-late-call.js";

type ScratchpadPatch = Extract<LoopEvent, { type: "scratchpad_patch" }>;

/** Everything one summarizer run beside a turn needs. */
export type SummarizeThreadInput = {
  repos: Repositories;
  userId: string;
  threadId: string;
  turnId: string;
  job: CompressionJob;
  /** The rendered scratchpad the turn started with. */
  scratchpad: string;
  provider: Provider;
  model: string;
  /** The summarizer model's MODEL_SETTINGS_FILE entry. */
  settings?: ModelSettings;
  /** The turn's context: its budget, and the ledger the call is recorded in while the turn runs. */
  ctx: LoopContext;
  /** Hands the call and the scratchpad patch to the turn while it still runs (joinSideWork). */
  side: SideChannel;
  /** Sends a frame to the thread after its turn has ended (appendOutsideTurn). */
  deliverLate: (event: ScratchpadPatch) => Promise<unknown>;
  /**
   * The process-wide observer (metrics) of a late call: the turn's own observer has ended, so a call
   * landing after it would be missing from the per-operation counters otherwise.
   */
  observeLate?: (record: LlmCallRecord) => void;
  /** Settles once the turn's driver has stored its end (or its suspension): late writes go after it. */
  turnStored: () => Promise<void>;
  /** The turn's stop, shutdown and SUMMARIZER_TIMEOUT_MS. */
  signal: AbortSignal;
  logger: FastifyBaseLogger;
};

/**
 * Runs the summarizer beside a turn and stores what it made: the new rolling summary with its
 * coverage, and its scratchpad proposals (a `scratchpad_patch`). Its call counts in the turn's budget;
 * in the turn's usage and ledger when it lands before the answer is complete, else in the ledger and
 * the turn's row afterwards (recordLateCall). The summary is one row written whole, so a turn that
 * starts before it lands reads the previous one. Never rejects: any failure keeps the old summary
 * and logs a warning.
 */
export async function summarizeThread(input: SummarizeThreadInput): Promise<void> {
  const { repos, userId, threadId, job, ctx, logger } = input;
  const { budget } = ctx;
  // Keep a call for the answer: the summary can wait for a later turn, the answer cannot.
  if (budget.breach || budget.used.llmCalls + 2 > budget.limits.MAX_TOTAL_LLM_CALLS) {
    logger.warn("summarizer skipped: the turn's LLM-call budget is nearly spent");
    return;
  }
  try {
    if (budget.tryStart("llm_calls")) return;
    const { record, output } = await summarizeHistory({
      provider: input.provider,
      model: input.model,
      job,
      scratchpad: input.scratchpad,
      signal: input.signal,
      ...(input.settings && { settings: input.settings }),
    });
    budget.addTokens(record.inputTokens + record.outputTokens);
    budget.addCost(record.costUsd);
    if (input.side.call(record)) ctx.onLlmCall?.(record);
    else {
      // After the turn row's end is written, or that write would replace the usage added here.
      await input.turnStored();
      await recordLateCall(repos, userId, threadId, input.turnId, record);
      input.observeLate?.(record);
    }
    if (!output.ok) {
      logger.warn({ reason: output.message }, "summarizer failed; the thread keeps its previous summary");
      return;
    }
    // Keyed by the message it runs through: a wider summary (of this branch or another) is never replaced.
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
      if (patch && !input.side.event(patch)) {
        await input.turnStored();
        await input.deliverLate(patch);
      }
    }
  } catch (error) {
    logger.warn({ err: error }, "summarizer failed; the thread keeps its previous summary");
  }
}

/** Applies the summarizer's proposals; a refused batch is only logged (the summary is already stored). */
async function scratchpadPatch(
  input: SummarizeThreadInput,
  ops: Parameters<Repositories["scratchpad"]["apply"]>[2],
): Promise<ScratchpadPatch | undefined> {
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

import { z } from "zod";

const limit = (value: number) => z.coerce.number().int().positive().default(value);

/**
 * Every per-turn limit, named exactly like its environment variable so the server's config can
 * reuse this schema: one source of truth per limit.
 */
export const BudgetLimits = z.object({
  MAX_DEPTH: limit(3),
  MAX_ITERATIONS_PER_LEVEL: limit(20),
  // Tool calls running at once across the whole tree (loop/parallel-permits.ts), not per batch.
  MAX_PARALLEL_PER_TURN: limit(8),
  MAX_TOTAL_SUBTASKS: limit(32),
  MAX_TOTAL_LLM_CALLS: limit(60),
  MAX_TOTAL_TOOL_CALLS: limit(200),
  MAX_WALL_CLOCK_MS: limit(180_000),
  MAX_TOOL_RESULT_BYTES: limit(50_000),
  MAX_HISTORY_TOKENS: limit(128_000),
  // A turn that uses every LLM call on a full history would cost ~7.7M tokens; 1M is a few dollars.
  MAX_TOTAL_TOKENS: limit(1_000_000),
  // 200 calls at the 50 KB cap would be 10 MB; 2 MB is far beyond what a model can use well.
  MAX_TOTAL_TOOL_RESULT_BYTES: limit(2_000_000),
});
export type BudgetLimits = z.infer<typeof BudgetLimits>;

/** The defaults of every limit. */
export const defaultBudgetLimits: Readonly<BudgetLimits> = Object.freeze(BudgetLimits.parse({}));

import { z } from "zod";

/** A positive integer limit with its default and its documentation (group `turns` of the server's reference). */
const limit = (value: number, description: string, computed = false) =>
  z.coerce
    .number()
    .int()
    .positive()
    .default(value)
    .meta({ group: "turns", description, ...(computed && { computed }) });

/**
 * Every per-turn limit, named exactly like its environment variable so the server's config can
 * reuse this schema: one source of truth per limit, its documentation included.
 */
export const BudgetLimits = z.object({
  MAX_DEPTH: limit(3, "Deepest subtask nesting."),
  MAX_ITERATIONS_PER_LEVEL: limit(20, "Model turns per level before an iteration-limit error."),
  // Tool calls running at once across the whole tree (loop/parallel-permits.ts), not per batch.
  MAX_PARALLEL_PER_TURN: limit(
    8,
    "Tool calls running at once across the whole turn tree (one limit per turn, not per batch). A subtask holds a slot while it calls the model and gives it back while its own tool calls run, so nesting never deadlocks.",
  ),
  MAX_TOTAL_SUBTASKS: limit(32, "Subtasks per turn."),
  MAX_TOTAL_LLM_CALLS: limit(60, "Provider calls per turn."),
  MAX_TOTAL_TOOL_CALLS: limit(200, "Tool calls per turn."),
  MAX_WALL_CLOCK_MS: limit(
    180_000,
    "Wall-clock time per turn, in milliseconds. An hour (3600000) or more is supported for long tasks.",
  ),
  MAX_TOOL_RESULT_BYTES: limit(50_000, "A tool result is truncated to this size, in bytes."),
  MAX_HISTORY_TOKENS: limit(
    128_000,
    "Older history is pruned beyond this many tokens (every model call, subtasks included). Unset: the default, or CONTEXT_MAX_TOKENS when that is higher; set below CONTEXT_MAX_TOKENS, the server refuses to start.",
    true,
  ),
  // A turn that uses every LLM call on a full history would cost ~7.7M tokens; 1M is a few dollars.
  MAX_TOTAL_TOKENS: limit(1_000_000, "Tokens per turn (budget reason `tokens`)."),
  // 200 calls at the 50 KB cap would be 10 MB; 2 MB is far beyond what a model can use well.
  MAX_TOTAL_TOOL_RESULT_BYTES: limit(2_000_000, "Tool-result bytes per turn (budget reason `bytes`)."),
});
export type BudgetLimits = z.infer<typeof BudgetLimits>;

/** The defaults of every limit. */
export const defaultBudgetLimits: Readonly<BudgetLimits> = Object.freeze(BudgetLimits.parse({}));

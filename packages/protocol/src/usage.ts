import { z } from "zod";

/** Totals of one turn across every depth. */
export const TurnUsage = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_tokens: z.number().int().nonnegative(),
  cache_write_tokens: z.number().int().nonnegative(),
  reasoning_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  cost_known: z.boolean(),
  llm_calls: z.number().int().nonnegative(),
  tool_calls: z.number().int().nonnegative(),
  subtasks: z.number().int().nonnegative(),
});
export type TurnUsage = z.infer<typeof TurnUsage>;

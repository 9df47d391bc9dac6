import { z } from "zod";

/** What one node of a turn's tree spent: the provider calls made directly under `parent_id`. */
export const NodeCost = z.object({
  /** The run_subtask, plan step or tool call the calls ran under; null for the root's own calls. */
  parent_id: z.string().nullable(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  /** False when a call's model has no known price (its cost counts as 0 in `cost_usd`). */
  cost_known: z.boolean(),
  llm_calls: z.number().int().nonnegative(),
});
export type NodeCost = z.infer<typeof NodeCost>;

/** What one turn spent, from the provider-call ledger: its totals and a node per distinct parent. */
export const TurnCost = NodeCost.omit({ parent_id: true }).extend({
  turn_id: z.string(),
  nodes: z.array(NodeCost),
});
export type TurnCost = z.infer<typeof TurnCost>;

/** `GET /api/threads/:id/usage`: the thread's turns that called a provider, oldest first. */
export const ThreadUsage = z.object({ turns: z.array(TurnCost) });
export type ThreadUsage = z.infer<typeof ThreadUsage>;

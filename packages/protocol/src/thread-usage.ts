import { z } from "zod";
import { LlmOperation } from "./llm-operation.js";

const Totals = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  /** False when a call's model has no known price (its cost counts as 0 in `cost_usd`). */
  cost_known: z.boolean(),
  llm_calls: z.number().int().nonnegative(),
});

/** What the calls of one operation spent (a turn's or the thread's), one entry per operation that called. */
export const OperationCost = Totals.extend({ operation: LlmOperation });
export type OperationCost = z.infer<typeof OperationCost>;

/**
 * What one node of a turn's tree spent on one operation: the provider calls made directly under
 * `parent_id` for it (create_plan's node has a `planner` and a `plan_review` entry).
 */
export const NodeCost = z.object({
  /** The run_subtask, plan step or tool call the calls ran under; null for the root's own calls. */
  parent_id: z.string().nullable(),
  operation: LlmOperation,
  ...Totals.shape,
});
export type NodeCost = z.infer<typeof NodeCost>;

/** What one turn spent, from the provider-call ledger: its totals and a node per distinct parent. */
export const TurnCost = Totals.extend({
  turn_id: z.string(),
  nodes: z.array(NodeCost),
  by_operation: z.array(OperationCost),
});
export type TurnCost = z.infer<typeof TurnCost>;

/** `GET /api/threads/:id/usage`: the thread's turns that called a provider, oldest first. */
export const ThreadUsage = z.object({ turns: z.array(TurnCost), by_operation: z.array(OperationCost) });
export type ThreadUsage = z.infer<typeof ThreadUsage>;

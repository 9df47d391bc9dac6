import { z } from "zod";

export const ExecutionTreeNode = z.object({
  id: z.string(),
  parent_id: z.string().nullable(),
  name: z.string(),
  title: z.string().optional(),
  args_preview: z.string().optional(),
  result_preview: z.string().optional(),
  is_error: z.boolean().optional(),
  duration_ms: z.number().nonnegative(),
  /**
   * `interrupted`: the call was still running when its turn ended `interrupted` (a crash, a shutdown,
   * a lost lease); absent on a call that ended by itself.
   */
  status: z.literal("interrupted").optional(),
  /**
   * On an interrupted call, or one Stop or the budget cut short (its result `cancelled` or `stopped:
   * the turn's budget is exhausted`, after `subtask "TITLE" ` for a subtask): the text its level
   * streamed (its depth ≥ 1 chunks), every character.
   */
  text: z.string().optional(),
});
export type ExecutionTreeNode = z.infer<typeof ExecutionTreeNode>;

/** The tool-call tree of one turn, stored with the final assistant message. */
export const ExecutionTreeSnapshot = z.object({
  version: z.literal(1),
  nodes: z.array(ExecutionTreeNode),
});
export type ExecutionTreeSnapshot = z.infer<typeof ExecutionTreeSnapshot>;

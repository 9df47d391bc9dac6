import { z } from "zod";

/**
 * An earlier attempt of a subtask that a server restart cut mid-stream: the text it streamed since
 * its last nested call, and how many of the node's nested calls had started before it.
 */
export const CutAttempt = z.object({
  status: z.literal("interrupted"),
  text: z.string(),
  after_calls: z.number().int().min(0),
});
export type CutAttempt = z.infer<typeof CutAttempt>;

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
  /** A subtask's attempts that a restart cut (oldest first); its own fields are the last attempt's. */
  attempts: z.array(CutAttempt).optional(),
});
export type ExecutionTreeNode = z.infer<typeof ExecutionTreeNode>;

/** The tool-call tree of one turn, stored with the final assistant message. */
export const ExecutionTreeSnapshot = z.object({
  version: z.literal(1),
  nodes: z.array(ExecutionTreeNode),
});
export type ExecutionTreeSnapshot = z.infer<typeof ExecutionTreeSnapshot>;

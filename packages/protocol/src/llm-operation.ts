import { z } from "zod";

/**
 * What a model call was for: the root's own calls (`turn`), a subtask's, a plan step's, create_plan's
 * planner and reviewer, the rolling summarizer, the thread title, and build_workflow's planner.
 */
export const LlmOperation = z.enum([
  "turn",
  "subtask",
  "plan_step",
  "planner",
  "plan_review",
  "summarizer",
  "title",
  "workflow_planner",
]);
export type LlmOperation = z.infer<typeof LlmOperation>;

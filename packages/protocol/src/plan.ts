import { z } from "zod";

/** How create_plan's plan runs: at once, only after the user approves it, or after a reviewer call approves it. */
export const PlanExecutionMode = z.enum(["auto_execute", "draft_only", "agent_review"]);
export type PlanExecutionMode = z.infer<typeof PlanExecutionMode>;

/** One step: it runs as a subtask with these instructions (and tools, when named). */
export const PlanStep = z.object({
  id: z.string().min(1).max(100),
  title: z.string().min(1).max(200),
  instructions: z.string().min(1),
  /** Tool names the step's subtask may use; default: all the caller's. */
  tools: z.array(z.string()).optional(),
  /** Ids of earlier steps whose results this step needs (a dependency inside a parallel stage too). */
  inputs: z.array(z.string()).optional(),
});
export type PlanStep = z.infer<typeof PlanStep>;

/** Stages run in order; the steps of a `parallel` stage run concurrently, of a `sequence` stage one by one. */
export const PlanStage = z.object({
  id: z.string().min(1).max(100),
  name: z.string().min(1).max(200),
  mode: z.enum(["parallel", "sequence"]),
  steps: z.array(PlanStep).min(1),
});
export type PlanStage = z.infer<typeof PlanStage>;

export const Plan = z.object({
  id: z.string(),
  goal: z.string(),
  stages: z.array(PlanStage).min(1),
});
export type Plan = z.infer<typeof Plan>;

/** Where a stored plan is: waiting for the user's decision, running, or how it ended. */
export const PlanStatus = z.enum(["pending_review", "approved", "revised", "running", "complete", "failed"]);
export type PlanStatus = z.infer<typeof PlanStatus>;

/** A plan create_plan made on a thread, as `GET /api/threads/:id/plans` lists it. */
export const StoredPlan = z.object({
  id: z.string(),
  /** The create_plan call that made it (its steps nest under it in the tree). */
  tool_call_id: z.string(),
  status: PlanStatus,
  execution_mode: PlanExecutionMode,
  plan: Plan,
  created_at: z.string(),
  updated_at: z.string(),
});
export type StoredPlan = z.infer<typeof StoredPlan>;

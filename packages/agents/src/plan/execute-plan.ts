import type { Plan } from "@agentwire-chat/protocol";
import type { PlanStore } from "./plan-store.js";
import { type RunPlanServices, runPlan, type StepOutcome, type WaitingStep } from "./run-plan.js";

/** A stage as the summary names it: enough for a client to lay the steps out again after a reload. */
export type StageOutline = { id: string; name: string; mode: "parallel" | "sequence"; step_ids: string[] };

/** What the model reads after a plan ran: every step's outcome, and the stages they ran in. */
export type PlanRunSummary = {
  plan_id: string;
  goal: string;
  status: "complete" | "failed";
  stages: StageOutline[];
  steps: StepOutcome[];
};

/** A plan run paused on a step that waits on the user: the steps that ended so far, and that step. */
export type PlanPause = { status: "waiting"; steps: StepOutcome[]; waiting: WaitingStep };

/**
 * Runs a plan with its stored status following along (running, then complete or failed; still
 * running while a step waits on the user). `finished`: the steps that ended before a resume.
 */
export async function executePlan(
  plan: Plan,
  services: RunPlanServices,
  store: PlanStore | undefined,
  finished: readonly StepOutcome[] = [],
): Promise<PlanRunSummary | PlanPause> {
  if (finished.length === 0) await quietly(store?.setStatus(plan.id, "running"));
  const { steps, waiting } = await runPlan(plan, services, finished);
  if (waiting) return { status: "waiting", steps, waiting };
  const status = steps.every((s) => s.status === "ok") ? "complete" : "failed";
  await quietly(store?.setStatus(plan.id, status));
  const stages = plan.stages.map((st) => ({
    id: st.id,
    name: st.name,
    mode: st.mode,
    step_ids: st.steps.map((x) => x.id),
  }));
  return { plan_id: plan.id, goal: plan.goal, status, stages, steps };
}

/**
 * A status update is bookkeeping for clients listing plans: the run's result goes to the model
 * whether or not it was recorded, so a storage failure must not turn a finished plan into an error.
 */
async function quietly(write: Promise<void> | undefined): Promise<void> {
  try {
    await write;
  } catch {
    // see above
  }
}

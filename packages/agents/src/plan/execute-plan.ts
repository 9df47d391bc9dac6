import type { Plan } from "@agentwire/protocol";
import type { PlanStore } from "./plan-store.js";
import { type RunPlanServices, runPlan, type StepOutcome } from "./run-plan.js";

/** What the model reads after a plan ran: every step's outcome. */
export type PlanRunSummary = {
  plan_id: string;
  goal: string;
  status: "complete" | "failed";
  steps: StepOutcome[];
};

/** Runs a plan with its stored status following along (running, then complete or failed). */
export async function executePlan(
  plan: Plan,
  services: RunPlanServices,
  store: PlanStore | undefined,
): Promise<PlanRunSummary> {
  await quietly(store?.setStatus(plan.id, "running"));
  const steps = await runPlan(plan, services);
  const status = steps.every((s) => s.status === "ok") ? "complete" : "failed";
  await quietly(store?.setStatus(plan.id, status));
  return { plan_id: plan.id, goal: plan.goal, status, steps };
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

import { Plan } from "@agentwire-chat/protocol";
import { z } from "zod";
import type { NestedSubtaskResult, ToolOutcome } from "../tools/tool.js";
import type { PlanPause } from "./execute-plan.js";
import { StepOutcome } from "./run-plan.js";

/** What create_plan keeps while a step waits on the user (a level of the suspended state). */
export const PlanResumeState = z.object({
  plan: Plan,
  /** The steps that ended before the pause. */
  steps: z.array(StepOutcome),
  /** The step whose subtask waits. */
  waiting_step: z.string(),
  /** The toolbelt a step gets when it names none. */
  default_tools: z.array(z.string()),
});
export type PlanResumeState = z.infer<typeof PlanResumeState>;

/** The create_plan outcome for a paused run: the turn suspends with the waiting step's question. */
export function planSuspension(plan: Plan, pause: PlanPause, defaultTools: readonly string[]): ToolOutcome {
  const state: PlanResumeState = {
    plan,
    steps: pause.steps,
    waiting_step: pause.waiting.stepId,
    default_tools: [...defaultTools],
  };
  const { subtask } = pause.waiting;
  return { type: "suspend", suspension: subtask.state.suspension, resume: { state, pending: subtask } };
}

/** Where a resumed plan goes on: the saved state with the waiting step's outcome added, or why not. */
export function resumedPlan(
  saved: unknown,
  resumed: NestedSubtaskResult,
): { ok: true; plan: Plan; finished: StepOutcome[]; defaultTools: string[] } | { ok: false; error: string } {
  const parsed = PlanResumeState.safeParse(saved);
  if (!parsed.success) return { ok: false, error: "the saved plan run cannot be read" };
  const { plan, steps, waiting_step, default_tools } = parsed.data;
  const step = plan.stages.flatMap((s) => s.steps).find((s) => s.id === waiting_step);
  if (!step) return { ok: false, error: `the saved plan has no step "${waiting_step}"` };
  const outcome: StepOutcome = {
    id: step.id,
    title: step.title,
    status: resumed.ok ? "ok" : "error",
    result: resumed.text,
  };
  return { ok: true, plan, finished: [...steps, outcome], defaultTools: default_tools };
}

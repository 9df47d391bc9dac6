import type { Plan, PlanStage, PlanStep } from "@agentwire-chat/protocol";
import { z } from "zod";
import type { NestedSubtask, NestedSubtaskResult, PendingSubtask } from "../tools/tool.js";

/** How one step ended; `skipped` when it never started (the turn stopped, or an input failed). */
export const StepOutcome = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(["ok", "error", "skipped"]),
  result: z.string(),
});
export type StepOutcome = z.infer<typeof StepOutcome>;

/** The step whose subtask waits on the user; the plan goes on from there after the answer. */
export type WaitingStep = { stepId: string; subtask: PendingSubtask };

/** Where a plan run stands: the steps that ended, in plan order, and the step that waits, if one does. */
export type PlanProgress = { steps: StepOutcome[]; waiting?: WaitingStep };

export type RunPlanServices = {
  /** Runs a step; each step takes a tree-wide MAX_PARALLEL_PER_TURN permit there (loop/parallel-permits.ts). */
  runSubtask: (task: NestedSubtask) => Promise<NestedSubtaskResult>;
  signal: AbortSignal;
  /** The toolbelt a step gets when it names none. */
  defaultTools: readonly string[];
  /** The create_plan call the steps nest under; step node ids derive from it. */
  callId: string;
};

/** One run's shared state: the ended steps by id, and the first step that waits. */
type Run = { done: Map<string, StepOutcome>; s: RunPlanServices; waiting?: WaitingStep };

/**
 * Runs the stages in order. A `parallel` stage's steps run at once (within the turn tree's
 * MAX_PARALLEL_PER_TURN, which every step's subtask counts in), a step waiting first for the steps of its stage it names in `inputs`; a `sequence` stage runs one
 * step after another. Each step is a nested subtask whose instructions end with its inputs' results.
 * Steps in `finished` (a run resumed after the user's answer) are not run again. When a step waits on
 * the user, the others of its stage that need not wait for it finish, and the run stops there.
 */
export async function runPlan(
  plan: Plan,
  services: RunPlanServices,
  finished: readonly StepOutcome[] = [],
): Promise<PlanProgress> {
  const run: Run = { done: new Map(finished.map((o) => [o.id, o])), s: services };
  for (const stage of plan.stages) {
    if (stage.mode === "parallel") await runParallel(stage, run);
    else await runSequence(stage, run);
    if (run.waiting) break;
  }
  const steps = plan.stages.flatMap((stage) => stage.steps.flatMap((step) => run.done.get(step.id) ?? []));
  return run.waiting ? { steps, waiting: run.waiting } : { steps };
}

async function runSequence(stage: PlanStage, run: Run): Promise<void> {
  for (const step of stage.steps) {
    if (run.done.has(step.id)) continue;
    const outcome = await runStep(step, run);
    if (outcome === WAITS) return;
    run.done.set(step.id, outcome);
  }
}

async function runParallel(stage: PlanStage, run: Run): Promise<void> {
  const running = new Map<string, Promise<void>>();
  for (const step of stage.steps) {
    if (run.done.has(step.id)) continue;
    const ownStage = (step.inputs ?? []).flatMap((id) => running.get(id) ?? []);
    running.set(
      step.id,
      (async () => {
        // Wait for the inputs before the step starts: a waiting step must hold no permit its inputs need.
        await Promise.all(ownStage);
        // An input that waits on the user: this step waits for the resume too.
        if ((step.inputs ?? []).some((id) => !run.done.has(id))) return;
        const outcome = await runStep(step, run);
        if (outcome !== WAITS) run.done.set(step.id, outcome);
      })(),
    );
  }
  await Promise.all(running.values());
}

const WAITS = Symbol("waits");

/** Runs one step; WAITS when its subtask waits on the user (then it is the run's waiting step). */
async function runStep(step: PlanStep, run: Run): Promise<StepOutcome | typeof WAITS> {
  const { done, s } = run;
  const base = { id: step.id, title: step.title };
  if (s.signal.aborted) return { ...base, status: "skipped", result: "not run: the turn stopped" };
  const inputs = (step.inputs ?? []).map((id) => done.get(id));
  const failed = inputs.filter((o) => o !== undefined && o.status !== "ok").map((o) => o?.id);
  if (failed.length > 0) {
    return {
      ...base,
      status: "skipped",
      result: `not run: its input step(s) ${failed.join(", ")} did not succeed`,
    };
  }
  const result = await s.runSubtask({
    id: `${s.callId}/${step.id}`,
    name: "plan_step",
    title: step.title,
    instructions: withInputs(step.instructions, inputs),
    tools: step.tools ?? [...s.defaultTools],
    args: { step_id: step.id, ...(step.inputs && { inputs: step.inputs }) },
    operation: "plan_step",
  });
  if (result.pending) {
    run.waiting ??= { stepId: step.id, subtask: result.pending };
    return WAITS;
  }
  return { ...base, status: result.ok ? "ok" : "error", result: result.text };
}

function withInputs(instructions: string, inputs: (StepOutcome | undefined)[]): string {
  const given = inputs.filter((o): o is StepOutcome => o !== undefined);
  if (given.length === 0) return instructions;
  const parts = given.map((o) => `## ${o.title} (step ${o.id})\n${o.result}`);
  return `${instructions}\n\nResults of the steps this one builds on:\n\n${parts.join("\n\n")}`;
}

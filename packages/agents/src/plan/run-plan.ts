import type { Plan, PlanStage, PlanStep } from "@agentwire/protocol";
import type { NestedSubtask, NestedSubtaskResult } from "../tools/tool.js";

/** How one step ended; `skipped` when it never started (the turn stopped, or an input failed). */
export type StepOutcome = { id: string; title: string; status: "ok" | "error" | "skipped"; result: string };

export type RunPlanServices = {
  runSubtask: (task: NestedSubtask) => Promise<NestedSubtaskResult>;
  maxParallel: number;
  signal: AbortSignal;
  /** The toolbelt a step gets when it names none. */
  defaultTools: readonly string[];
  /** The create_plan call the steps nest under; step node ids derive from it. */
  callId: string;
};

/**
 * Runs the stages in order. A `parallel` stage's steps run at once, at most `maxParallel` together,
 * a step waiting first for the steps of its stage it names in `inputs`; a `sequence` stage runs one
 * step after another. Each step is a nested subtask whose instructions end with its inputs' results.
 */
export async function runPlan(plan: Plan, services: RunPlanServices): Promise<StepOutcome[]> {
  const done = new Map<string, StepOutcome>();
  for (const stage of plan.stages) {
    const outcomes =
      stage.mode === "parallel"
        ? await runParallel(stage, done, services)
        : await runSequence(stage, done, services);
    for (const o of outcomes) done.set(o.id, o);
  }
  return [...done.values()];
}

async function runSequence(stage: PlanStage, done: Map<string, StepOutcome>, s: RunPlanServices) {
  const outcomes: StepOutcome[] = [];
  for (const step of stage.steps) {
    const outcome = await runStep(step, done, s);
    done.set(step.id, outcome);
    outcomes.push(outcome);
  }
  return outcomes;
}

async function runParallel(stage: PlanStage, done: Map<string, StepOutcome>, s: RunPlanServices) {
  const slots = new Slots(Math.max(1, s.maxParallel));
  const running = new Map<string, Promise<StepOutcome>>();
  for (const step of stage.steps) {
    const ownStage = (step.inputs ?? []).flatMap((id) => running.get(id) ?? []);
    running.set(
      step.id,
      (async () => {
        // Wait for the inputs before taking a slot: a waiting step must not starve the ones it waits on.
        for (const o of await Promise.all(ownStage)) done.set(o.id, o);
        await slots.take();
        try {
          return await runStep(step, done, s);
        } finally {
          slots.give();
        }
      })(),
    );
  }
  return Promise.all(running.values());
}

async function runStep(
  step: PlanStep,
  done: Map<string, StepOutcome>,
  s: RunPlanServices,
): Promise<StepOutcome> {
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
  });
  return { ...base, status: result.ok ? "ok" : "error", result: result.text };
}

function withInputs(instructions: string, inputs: (StepOutcome | undefined)[]): string {
  const given = inputs.filter((o): o is StepOutcome => o !== undefined);
  if (given.length === 0) return instructions;
  const parts = given.map((o) => `## ${o.title} (step ${o.id})\n${o.result}`);
  return `${instructions}\n\nResults of the steps this one builds on:\n\n${parts.join("\n\n")}`;
}

/** A counting semaphore: at most `free` holders at once, served in arrival order. */
class Slots {
  private readonly waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

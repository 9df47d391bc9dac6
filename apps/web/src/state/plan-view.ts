import type { PlanDecisionView, PlanReviewView, PlanView } from "@agentwire-chat/client";
import type { Plan, PlanExecutionMode, PlanStage, PlanStep } from "@agentwire-chat/protocol";
import { type Child, isSubtask, type ToolCard, type TurnView } from "./thread-view.js";

export type { PlanDecisionView, PlanReviewView, PlanView };

/** A step with the subtask card that runs it, when one has started. */
export type StepView = { step: PlanStep; card?: ToolCard };
export type StageView = { stage: PlanStage; steps: StepView[] };

/**
 * Matches a plan's steps to the subtask cards nested under its create_plan card: by id (the server
 * names a step's call `<create_plan call id>/<step id>`) first, then by title. Children no step claims stay in `rest`,
 * so nothing the agent did is hidden.
 */
export function planLayout(card: ToolCard, turn: TurnView): { stages: StageView[]; rest: Child[] } {
  const plan = card.plan?.plan;
  if (!plan) return { stages: [], rest: card.children };
  const subtasks = card.children.flatMap((c) => {
    const sub = c.kind === "card" ? turn.cards[c.id] : undefined;
    return sub && isSubtask(sub.name) ? [sub] : [];
  });
  const claimed = new Set<string>();
  const claim = (found: ToolCard | undefined) => {
    if (found) claimed.add(found.id);
    return found;
  };
  const steps = plan.stages.flatMap((s) => s.steps);
  const byId = new Map(
    steps.map((step) => [
      step.id,
      claim(subtasks.find((c) => !claimed.has(c.id) && (c.id === step.id || c.id.endsWith(`/${step.id}`)))),
    ]),
  );
  const matched = (step: PlanStep) =>
    byId.get(step.id) ?? claim(subtasks.find((c) => !claimed.has(c.id) && c.title === step.title));
  const stages = plan.stages.map((stage) => ({
    stage,
    steps: stage.steps.map((step) => {
      const found = matched(step);
      return found ? { step, card: found } : { step };
    }),
  }));
  const rest = card.children.filter((c) => c.kind !== "card" || !claimed.has(c.id));
  return { stages, rest };
}

/**
 * A plan out of a value: the plan itself, `{plan}` around it, or the JSON text of either (a stored
 * create_plan result). Anything that is not a well-formed plan gives undefined: the card then
 * shows as an ordinary tool card.
 */
export function planFrom(value: unknown): Plan | undefined {
  const data = typeof value === "string" ? parseJson(value) : value;
  if (!isRecord(data)) return undefined;
  if (isPlan(data)) return data as Plan;
  return isPlan(data.plan) ? (data.plan as Plan) : undefined;
}

/** The `plan_id` a stored create_plan result or an approved run's call arguments name. */
export function planIdOf(value: unknown): string | undefined {
  const data = typeof value === "string" ? parseJson(value) : value;
  return isRecord(data) && typeof data.plan_id === "string" ? data.plan_id : undefined;
}

/**
 * A plan rebuilt from a run's summary (`{plan_id, goal, stages: [{id, name, mode, step_ids}], steps:
 * [{id, title}]}`, what create_plan returns after running one) when the plan itself is not stored.
 */
export function planFromSummary(value: unknown): Plan | undefined {
  const data = typeof value === "string" ? parseJson(value) : value;
  if (!isRecord(data) || typeof data.plan_id !== "string" || typeof data.goal !== "string") return undefined;
  const steps = Array.isArray(data.steps) ? data.steps.filter(isRecord) : [];
  const known = steps.flatMap((s) =>
    typeof s.id === "string" && typeof s.title === "string"
      ? [{ id: s.id, title: s.title, instructions: "" }]
      : [],
  );
  if (known.length === 0) return undefined;
  const byId = new Map(known.map((s) => [s.id, s]));
  // The summary names the stages the steps ran in; an older one does not: its steps as one stage.
  const stages = (Array.isArray(data.stages) ? data.stages.filter(isRecord) : []).flatMap((st) => {
    const ids = Array.isArray(st.step_ids) ? st.step_ids : [];
    const stepsOf = ids.flatMap((id) => (typeof id === "string" && byId.has(id) ? [byId.get(id)!] : []));
    if (typeof st.id !== "string" || typeof st.name !== "string" || stepsOf.length === 0) return [];
    return [
      { id: st.id, name: st.name, mode: st.mode === "parallel" ? "parallel" : "sequence", steps: stepsOf },
    ] as const;
  });
  return {
    id: data.plan_id,
    goal: data.goal,
    stages:
      stages.length > 0 ? [...stages] : [{ id: "steps", name: "Steps", mode: "sequence", steps: known }],
  };
}

/** Fields of a stored create_plan result beside the plan (`execution_mode`, `status`), when it has them. */
export function planResultFields(value: unknown): { mode?: PlanExecutionMode; status?: string } {
  const data = typeof value === "string" ? parseJson(value) : value;
  if (!isRecord(data)) return {};
  const mode = data.execution_mode ?? data.mode;
  return {
    ...(mode === "auto_execute" || mode === "draft_only" || mode === "agent_review" ? { mode } : {}),
    ...(typeof data.status === "string" && { status: data.status }),
  };
}

function isPlan(value: unknown): boolean {
  if (!isRecord(value) || typeof value.id !== "string" || typeof value.goal !== "string") return false;
  const { stages } = value;
  return (
    Array.isArray(stages) &&
    stages.length > 0 &&
    stages.every(
      (s) =>
        isRecord(s) &&
        typeof s.id === "string" &&
        typeof s.name === "string" &&
        (s.mode === "parallel" || s.mode === "sequence") &&
        Array.isArray(s.steps) &&
        s.steps.every((p) => isRecord(p) && typeof p.id === "string" && typeof p.title === "string"),
    )
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

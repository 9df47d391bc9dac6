import { Plan } from "@agentwire-chat/protocol";

/** A plan ready to run, or what is wrong with the planner's answer (fed back for a repair). */
export type PlanCheck = { ok: true; plan: Plan } | { ok: false; issues: string[] };

// The planner need not invent the id: the tool assigns its own.
const PlannerPlan = Plan.extend({ id: Plan.shape.id.optional() });

const MAX_ISSUES = 10;

/**
 * Checks a planner's answer: the schema, unique stage and step ids, inputs naming earlier stages'
 * steps or earlier steps of the same stage (so no cycle can exist), tools within the caller's belt.
 */
export function validatePlan(value: unknown, opts: { id: string; toolNames: readonly string[] }): PlanCheck {
  const parsed = PlannerPlan.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(plan)"}: ${i.message}`);
    return { ok: false, issues: issues.slice(0, MAX_ISSUES) };
  }
  const plan: Plan = { ...parsed.data, id: opts.id };
  const issues: string[] = [];
  const allowed = new Set(opts.toolNames);
  const stageIds = new Set<string>();
  const before = new Set<string>();
  for (const stage of plan.stages) {
    if (stageIds.has(stage.id)) issues.push(`stage id "${stage.id}" is used twice`);
    stageIds.add(stage.id);
    for (const step of stage.steps) {
      if (before.has(step.id)) issues.push(`step id "${step.id}" is used twice`);
      for (const input of step.inputs ?? []) {
        if (!before.has(input)) {
          issues.push(
            `step "${step.id}": input "${input}" is not a step of an earlier stage or listed before it in its stage`,
          );
        }
      }
      const unknown = (step.tools ?? []).filter((t) => !allowed.has(t));
      if (unknown.length > 0) issues.push(`step "${step.id}": tools not available: ${unknown.join(", ")}`);
      before.add(step.id);
    }
  }
  return issues.length > 0 ? { ok: false, issues: issues.slice(0, MAX_ISSUES) } : { ok: true, plan };
}

import type { NewPlan } from "./repositories.js";
import type { PlanRow } from "./rows.js";

/** The user's new plan row, created and updated `now`. */
export function newPlanRow(userId: string, plan: NewPlan, now: number): PlanRow {
  return { ...plan, userId, createdAt: now, updatedAt: now };
}

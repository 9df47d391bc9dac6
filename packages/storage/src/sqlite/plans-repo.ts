import { and, asc, eq } from "drizzle-orm";
import { newPlanRow } from "../contract/plan-rows.js";
import type { NewPlan, PlanRow, PlansRepo } from "../contract/repositories.js";
import type { Db } from "./open-database.js";
import { type PlanStatus, plans } from "./schema/index.js";

/** Plans create_plan made, always scoped by the owning user: another user's plan reads as missing. */
export class SqlitePlansRepo implements PlansRepo {
  constructor(private readonly db: Db) {}

  /** Stores a plan made on the user's thread. */
  async create(userId: string, plan: NewPlan, now = Date.now()): Promise<PlanRow> {
    const row = newPlanRow(userId, plan, now);
    this.db.insert(plans).values(row).run();
    return row;
  }

  /** The plan if it exists and belongs to the user. */
  async get(userId: string, planId: string): Promise<PlanRow | undefined> {
    return this.db
      .select()
      .from(plans)
      .where(and(eq(plans.id, planId), eq(plans.userId, userId)))
      .get();
  }

  /** The plans of the user's thread, oldest first. */
  async listForThread(userId: string, threadId: string, status?: PlanStatus): Promise<PlanRow[]> {
    return this.db
      .select()
      .from(plans)
      .where(
        and(
          eq(plans.threadId, threadId),
          eq(plans.userId, userId),
          status === undefined ? undefined : eq(plans.status, status),
        ),
      )
      .orderBy(asc(plans.createdAt), asc(plans.id))
      .all();
  }

  /** Sets the plan's status; false when the user has no such plan. */
  async setStatus(userId: string, planId: string, status: PlanStatus, now = Date.now()): Promise<boolean> {
    return (
      this.db
        .update(plans)
        .set({ status, updatedAt: now })
        .where(and(eq(plans.id, planId), eq(plans.userId, userId)))
        .run().changes > 0
    );
  }

  /** Moves the plan from `from` to `to` only while it is still `from`; false otherwise. */
  async transition(
    userId: string,
    planId: string,
    from: PlanStatus,
    to: PlanStatus,
    now = Date.now(),
  ): Promise<boolean> {
    return (
      this.db
        .update(plans)
        .set({ status: to, updatedAt: now })
        .where(and(eq(plans.id, planId), eq(plans.userId, userId), eq(plans.status, from)))
        .run().changes > 0
    );
  }
}

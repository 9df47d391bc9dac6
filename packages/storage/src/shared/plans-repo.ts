import type { PlanStatus } from "@agentwire-chat/protocol";
import { and, asc, eq } from "drizzle-orm";
import { newPlanRow } from "../contract/plan-rows.js";
import type { NewPlan, PlanRow, PlansRepo } from "../contract/repositories.js";
import type { Dialect } from "./dialect.js";

/** Plans create_plan made, always scoped by the owning user: another user's plan reads as missing. */
export class SharedPlansRepo implements PlansRepo {
  constructor(private readonly dialect: Dialect) {}

  /** Stores a plan made on the user's thread. */
  async create(userId: string, plan: NewPlan, now = Date.now()): Promise<PlanRow> {
    const row = newPlanRow(userId, plan, now);
    await this.dialect.insert(this.dialect.tables.plans, row);
    return row;
  }

  /** The plan if it exists and belongs to the user. */
  async get(userId: string, planId: string): Promise<PlanRow | undefined> {
    const { plans } = this.dialect.tables;
    return this.dialect.first<PlanRow>({
      table: plans,
      where: and(eq(plans.id, planId), eq(plans.userId, userId)),
    });
  }

  /** The plans of the user's thread, oldest first. */
  async listForThread(userId: string, threadId: string, status?: PlanStatus): Promise<PlanRow[]> {
    const { plans } = this.dialect.tables;
    return this.dialect.all<PlanRow>({
      table: plans,
      where: and(
        eq(plans.threadId, threadId),
        eq(plans.userId, userId),
        status === undefined ? undefined : eq(plans.status, status),
      ),
      orderBy: [asc(plans.createdAt), asc(plans.id)],
    });
  }

  /** Sets the plan's status; false when the user has no such plan. */
  async setStatus(userId: string, planId: string, status: PlanStatus, now = Date.now()): Promise<boolean> {
    const { plans } = this.dialect.tables;
    const changed = await this.dialect.update(
      plans,
      { status, updatedAt: now },
      and(eq(plans.id, planId), eq(plans.userId, userId)),
    );
    return changed > 0;
  }

  /** Moves the plan from `from` to `to` only while it is still `from`; false otherwise. */
  async transition(
    userId: string,
    planId: string,
    from: PlanStatus,
    to: PlanStatus,
    now = Date.now(),
  ): Promise<boolean> {
    const { plans } = this.dialect.tables;
    const changed = await this.dialect.update(
      plans,
      { status: to, updatedAt: now },
      and(eq(plans.id, planId), eq(plans.userId, userId), eq(plans.status, from)),
    );
    return changed > 0;
  }
}

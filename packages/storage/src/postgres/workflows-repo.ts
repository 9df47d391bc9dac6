import { and, desc, eq } from "drizzle-orm";
import type { WorkflowChanges, WorkflowRow, WorkflowsRepo } from "../contract/repositories.js";
import { newWorkflowRow, workflowUpdateColumns } from "../contract/workflow-rows.js";
import type { PgDb } from "./open-postgres.js";
import { workflows } from "./schema/index.js";

/** Saved workflows, always scoped by the owning user: another user's workflow reads as missing. */
export class PgWorkflowsRepo implements WorkflowsRepo {
  constructor(private readonly db: PgDb) {}

  /** The user's workflows, most recently updated first. */
  async list(userId: string): Promise<WorkflowRow[]> {
    return this.db
      .select()
      .from(workflows)
      .where(eq(workflows.userId, userId))
      .orderBy(desc(workflows.updatedAt), desc(workflows.createdAt));
  }

  /** The workflow if it exists and belongs to the user. */
  async get(userId: string, workflowId: string): Promise<WorkflowRow | undefined> {
    const rows = await this.db
      .select()
      .from(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .limit(1);
    return rows[0];
  }

  /** Stores a new workflow for the user. */
  async create(
    userId: string,
    name: string,
    graph: Record<string, unknown>,
    now = Date.now(),
  ): Promise<WorkflowRow> {
    const row = newWorkflowRow(userId, name, graph, now);
    await this.db.insert(workflows).values(row);
    return row;
  }

  /** Replaces name and/or graph; undefined when the user has no such workflow. */
  async update(
    userId: string,
    workflowId: string,
    changes: WorkflowChanges,
    now = Date.now(),
  ): Promise<WorkflowRow | undefined> {
    const rows = await this.db
      .update(workflows)
      .set(workflowUpdateColumns(changes, now))
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .returning();
    return rows[0];
  }

  /** Deletes a workflow; false when not the user's. */
  async delete(userId: string, workflowId: string): Promise<boolean> {
    const result = await this.db
      .delete(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)));
    return (result.rowCount ?? 0) > 0;
  }
}

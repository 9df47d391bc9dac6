import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import type { WorkflowRow, WorkflowsRepo } from "../repositories.js";
import type { PgDb } from "./open-postgres.js";
import { workflows } from "./schema/index.js";

type PgWorkflowRow = typeof workflows.$inferSelect;

/** Saved workflows, always scoped by the owning user: another user's workflow reads as missing. */
export class PgWorkflowsRepo implements WorkflowsRepo {
  constructor(private readonly db: PgDb) {}

  /** The user's workflows, most recently updated first. */
  async list(userId: string): Promise<WorkflowRow[]> {
    const rows = await this.db
      .select()
      .from(workflows)
      .where(eq(workflows.userId, userId))
      .orderBy(desc(workflows.updatedAt), desc(workflows.createdAt));
    return rows.map(fromPgWorkflow);
  }

  /** The workflow if it exists and belongs to the user. */
  async get(userId: string, workflowId: string): Promise<WorkflowRow | undefined> {
    const rows = await this.db
      .select()
      .from(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .limit(1);
    return rows[0] && fromPgWorkflow(rows[0]);
  }

  /** Stores a new workflow for the user. */
  async create(
    userId: string,
    name: string,
    graph: Record<string, unknown>,
    now = Date.now(),
  ): Promise<WorkflowRow> {
    const row: WorkflowRow = { id: randomUUID(), userId, name, graph, createdAt: now, updatedAt: now };
    await this.db.insert(workflows).values({ ...row, graph: JSON.stringify(graph) });
    return row;
  }

  /** Replaces name and/or graph; undefined when the user has no such workflow. */
  async update(
    userId: string,
    workflowId: string,
    changes: { name?: string; graph?: Record<string, unknown> },
    now = Date.now(),
  ): Promise<WorkflowRow | undefined> {
    const rows = await this.db
      .update(workflows)
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.graph !== undefined && { graph: JSON.stringify(changes.graph) }),
        updatedAt: now,
      })
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .returning();
    return rows[0] && fromPgWorkflow(rows[0]);
  }

  /** Deletes a workflow; false when not the user's. */
  async delete(userId: string, workflowId: string): Promise<boolean> {
    const result = await this.db
      .delete(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)));
    return (result.rowCount ?? 0) > 0;
  }
}

/** A Postgres workflow row with its graph decoded, as the SQLite schema reads it. */
function fromPgWorkflow(row: PgWorkflowRow): WorkflowRow {
  return { ...row, graph: JSON.parse(row.graph) as WorkflowRow["graph"] };
}

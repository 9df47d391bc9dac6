import { and, desc, eq } from "drizzle-orm";
import type { WorkflowChanges, WorkflowRow, WorkflowsRepo } from "../contract/repositories.js";
import { newWorkflowRow, workflowUpdateColumns } from "../contract/workflow-rows.js";
import type { Db } from "./open-database.js";
import { workflows } from "./schema/index.js";

/** Saved workflows, always scoped by the owning user: another user's workflow reads as missing. */
export class SqliteWorkflowsRepo implements WorkflowsRepo {
  constructor(private readonly db: Db) {}

  /** The user's workflows, most recently updated first. */
  async list(userId: string): Promise<WorkflowRow[]> {
    return this.db
      .select()
      .from(workflows)
      .where(eq(workflows.userId, userId))
      .orderBy(desc(workflows.updatedAt), desc(workflows.createdAt))
      .all();
  }

  /** The workflow if it exists and belongs to the user. */
  async get(userId: string, workflowId: string): Promise<WorkflowRow | undefined> {
    return this.db
      .select()
      .from(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .get();
  }

  /** Stores a new workflow for the user. */
  async create(
    userId: string,
    name: string,
    graph: Record<string, unknown>,
    now = Date.now(),
  ): Promise<WorkflowRow> {
    const row = newWorkflowRow(userId, name, graph, now);
    this.db.insert(workflows).values(row).run();
    return row;
  }

  /** Replaces name and/or graph; undefined when the user has no such workflow. */
  async update(
    userId: string,
    workflowId: string,
    changes: WorkflowChanges,
    now = Date.now(),
  ): Promise<WorkflowRow | undefined> {
    return this.db
      .update(workflows)
      .set(workflowUpdateColumns(changes, now))
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .returning()
      .get();
  }

  /** Deletes a workflow; false when not the user's. */
  async delete(userId: string, workflowId: string): Promise<boolean> {
    return (
      this.db
        .delete(workflows)
        .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
        .run().changes > 0
    );
  }
}

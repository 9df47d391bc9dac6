import { and, desc, eq } from "drizzle-orm";
import type { WorkflowChanges, WorkflowRow, WorkflowsRepo } from "../contract/repositories.js";
import { newWorkflowRow, workflowUpdateColumns } from "../contract/workflow-rows.js";
import type { Dialect } from "./dialect.js";

/** Saved workflows, always scoped by the owning user: another user's workflow reads as missing. */
export class SharedWorkflowsRepo implements WorkflowsRepo {
  constructor(private readonly dialect: Dialect) {}

  /** The user's workflows, most recently updated first. */
  async list(userId: string): Promise<WorkflowRow[]> {
    const { workflows } = this.dialect.tables;
    return this.dialect.all<WorkflowRow>({
      table: workflows,
      where: eq(workflows.userId, userId),
      orderBy: [desc(workflows.updatedAt), desc(workflows.createdAt)],
    });
  }

  /** The workflow if it exists and belongs to the user. */
  async get(userId: string, workflowId: string): Promise<WorkflowRow | undefined> {
    const { workflows } = this.dialect.tables;
    return this.dialect.first<WorkflowRow>({
      table: workflows,
      where: and(eq(workflows.id, workflowId), eq(workflows.userId, userId)),
    });
  }

  /** Stores a new workflow for the user. */
  async create(
    userId: string,
    name: string,
    graph: Record<string, unknown>,
    now = Date.now(),
  ): Promise<WorkflowRow> {
    const row = newWorkflowRow(userId, name, graph, now);
    await this.dialect.insert(this.dialect.tables.workflows, row);
    return row;
  }

  /** Replaces name and/or graph; undefined when the user has no such workflow. */
  async update(
    userId: string,
    workflowId: string,
    changes: WorkflowChanges,
    now = Date.now(),
  ): Promise<WorkflowRow | undefined> {
    const { workflows } = this.dialect.tables;
    return this.dialect.updateReturning<WorkflowRow>(
      workflows,
      workflowUpdateColumns(changes, now),
      and(eq(workflows.id, workflowId), eq(workflows.userId, userId)),
    );
  }

  /** Deletes a workflow; false when not the user's. */
  async delete(userId: string, workflowId: string): Promise<boolean> {
    const { workflows } = this.dialect.tables;
    const deleted = await this.dialect.delete(
      workflows,
      and(eq(workflows.id, workflowId), eq(workflows.userId, userId)),
    );
    return deleted > 0;
  }
}

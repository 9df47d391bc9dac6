import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "./open-database.js";
import { workflows } from "./schema/index.js";

export type WorkflowRow = typeof workflows.$inferSelect;

/** A saved workflow as the HTTP API shows it. */
export type WorkflowRecord = {
  id: string;
  name: string;
  graph: Record<string, unknown>;
  created_at: string;
  updated_at: string;
};

/** Saved workflows, always scoped by the owning user: another user's workflow reads as missing. */
export class WorkflowsRepo {
  constructor(private readonly db: Db) {}

  /** The user's workflows, most recently updated first. */
  list(userId: string): WorkflowRow[] {
    return this.db
      .select()
      .from(workflows)
      .where(eq(workflows.userId, userId))
      .orderBy(desc(workflows.updatedAt), desc(workflows.createdAt))
      .all();
  }

  /** The workflow if it exists and belongs to the user. */
  get(userId: string, workflowId: string): WorkflowRow | undefined {
    return this.db
      .select()
      .from(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .get();
  }

  /** Stores a new workflow for the user. */
  create(userId: string, name: string, graph: Record<string, unknown>, now = Date.now()): WorkflowRow {
    const row: WorkflowRow = { id: randomUUID(), userId, name, graph, createdAt: now, updatedAt: now };
    this.db.insert(workflows).values(row).run();
    return row;
  }

  /** Replaces name and/or graph; undefined when the user has no such workflow. */
  update(
    userId: string,
    workflowId: string,
    changes: { name?: string; graph?: Record<string, unknown> },
    now = Date.now(),
  ): WorkflowRow | undefined {
    return this.db
      .update(workflows)
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.graph !== undefined && { graph: changes.graph }),
        updatedAt: now,
      })
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
      .returning()
      .get();
  }

  /** Deletes a workflow; false when not the user's. */
  delete(userId: string, workflowId: string): boolean {
    return (
      this.db
        .delete(workflows)
        .where(and(eq(workflows.id, workflowId), eq(workflows.userId, userId)))
        .run().changes > 0
    );
  }
}

/** A workflow row as the HTTP API's record. */
export function toWorkflowRecord(row: WorkflowRow): WorkflowRecord {
  return {
    id: row.id,
    name: row.name,
    graph: row.graph,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

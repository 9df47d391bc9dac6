import { randomUUID } from "node:crypto";
import type { WorkflowChanges } from "./repositories.js";
import type { WorkflowRow } from "./rows.js";

/** A new workflow of the user, with a fresh id, created and updated `now`. */
export function newWorkflowRow(
  userId: string,
  name: string,
  graph: Record<string, unknown>,
  now: number,
): WorkflowRow {
  return { id: randomUUID(), userId, name, graph, createdAt: now, updatedAt: now };
}

/** The columns an update writes: only the fields the caller gave, and always the update time. */
export function workflowUpdateColumns(
  changes: WorkflowChanges,
  now: number,
): Partial<Pick<WorkflowRow, "name" | "graph">> & Pick<WorkflowRow, "updatedAt"> {
  return {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.graph !== undefined && { graph: changes.graph }),
    updatedAt: now,
  };
}

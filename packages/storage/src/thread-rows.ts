import { randomUUID } from "node:crypto";
import type { ThreadSummary } from "@agentwire/protocol";
import type { ThreadRow } from "./rows.js";

/** A new thread of the user, with a fresh id, created and updated `now`. */
export function newThreadRow(userId: string, title: string, now: number): ThreadRow {
  return { id: randomUUID(), userId, title, createdAt: now, updatedAt: now };
}

/** A thread row as the protocol's ThreadSummary. */
export function toThreadSummary(row: ThreadRow): ThreadSummary {
  return {
    id: row.id,
    title: row.title,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

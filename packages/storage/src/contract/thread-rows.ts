import { randomUUID } from "node:crypto";
import type { ThreadSummary } from "@agentwire-chat/protocol";
import type { ThreadRow } from "./rows.js";

/** A new thread of the user, created and updated `now`, with a fresh id unless the caller chose one. */
export function newThreadRow(
  userId: string,
  title: string,
  now: number,
  id: string = randomUUID(),
): ThreadRow {
  return { id, userId, title, createdAt: now, updatedAt: now, currentLeafId: null };
}

/** A thread row as the protocol's ThreadSummary (`queued`: how many messages wait, left out when none). */
export function toThreadSummary(row: ThreadRow, queued = 0): ThreadSummary {
  return {
    id: row.id,
    title: row.title,
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
    ...(row.currentLeafId !== null && { current_leaf_id: row.currentLeafId }),
    ...(queued > 0 && { queued }),
  };
}

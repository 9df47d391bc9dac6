import type { NewQueuedMessage } from "./repositories.js";
import type { QueuedMessageRow } from "./rows.js";

/** Where a mode's message goes in its queue: an interrupt's before every other (0), the rest in arrival order (1). */
export function queuePriority(mode: QueuedMessageRow["mode"]): number {
  return mode === "interrupt" ? 0 : 1;
}

/** The row a queued message becomes; `seq` is 0 here, each dialect assigns the next inside its transaction. */
export function newQueuedRow(
  userId: string,
  threadId: string,
  message: NewQueuedMessage,
  now: number,
): QueuedMessageRow {
  return {
    id: message.id,
    threadId,
    userId,
    mode: message.mode,
    priority: queuePriority(message.mode),
    seq: 0,
    data: message.data,
    requestId: message.requestId ?? null,
    createdAt: now,
  };
}

/** Start order: by priority, then seq. */
export function byStartOrder(a: QueuedMessageRow, b: QueuedMessageRow): number {
  return a.priority - b.priority || a.seq - b.seq;
}

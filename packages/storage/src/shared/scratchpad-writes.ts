import { applyScratchpadOps, editScratchpadItem, ScratchpadOpError } from "@agentwire-chat/agents";
import type { ScratchpadEdit, ScratchpadItem, ScratchpadOp } from "@agentwire-chat/protocol";
import type { ScratchpadRow } from "../contract/rows.js";
import { toScratchpadItem, toScratchpadRow } from "../contract/scratchpad-rows.js";

/** The columns a change to an existing item writes (its id, user, thread and position never change). */
export type ScratchpadItemColumns = Pick<
  ScratchpadRow,
  "kind" | "title" | "details" | "status" | "updatedAt"
> &
  Partial<Pick<ScratchpadRow, "relatedIds">>;

/** One existing item's new columns, by its id. */
export interface ScratchpadUpdate {
  id: string;
  columns: ScratchpadItemColumns;
}

/** What a batch of ops writes: the updates, the new rows, and the changed items to return, whole. */
export interface ScratchpadOpWrites {
  updates: ScratchpadUpdate[];
  inserts: ScratchpadRow[];
  items: ScratchpadItem[];
}

/**
 * The ops applied to the thread's current items (in scratchpad order): new items are positioned after
 * them. Throws ScratchpadOpError (its message is for the model) when an op names an id the thread lacks
 * or the scratchpad is full; nothing is written then.
 */
export function scratchpadOpWrites(
  userId: string,
  threadId: string,
  current: ScratchpadItem[],
  ops: ScratchpadOp[],
  now: number,
): ScratchpadOpWrites {
  const result = applyScratchpadOps(current, ops, now);
  if (!result.ok) throw new ScratchpadOpError(result.message);
  const updates = result.updated.map((item) => {
    const row = toScratchpadRow(userId, threadId, item, 0);
    return {
      id: item.id,
      columns: {
        kind: row.kind,
        title: row.title,
        details: row.details,
        status: row.status,
        relatedIds: row.relatedIds,
        updatedAt: row.updatedAt,
      },
    };
  });
  const inserts = result.added.map((item, i) =>
    toScratchpadRow(userId, threadId, item, current.length + i + 1),
  );
  return { updates, inserts, items: [...result.updated, ...result.added] };
}

/** The user's edit applied to a stored item: the item whole, and the columns its update writes. */
export function scratchpadEditWrite(
  row: ScratchpadRow,
  edit: ScratchpadEdit,
  now: number,
): { item: ScratchpadItem; columns: ScratchpadItemColumns } {
  const item = editScratchpadItem(toScratchpadItem(row), edit, now);
  const next = toScratchpadRow(row.userId, row.threadId, item, row.position);
  return {
    item,
    columns: {
      kind: next.kind,
      title: next.title,
      details: next.details,
      status: next.status,
      updatedAt: now,
    },
  };
}

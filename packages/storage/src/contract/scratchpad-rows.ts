import type { ScratchpadItem } from "@agentwire-chat/protocol";
import type { ScratchpadRow } from "./rows.js";

export type { ScratchpadRow };

/** A stored row as the protocol's ScratchpadItem (absent optional fields left out, not null). */
export function toScratchpadItem(row: ScratchpadRow): ScratchpadItem {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    ...(row.details != null && { details: row.details }),
    status: row.status,
    ...(row.relatedIds != null && { related_ids: row.relatedIds }),
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

/** An item as a row of the user's thread at `position`; times come back from the item's ISO stamps. */
export function toScratchpadRow(
  userId: string,
  threadId: string,
  item: ScratchpadItem,
  position: number,
): ScratchpadRow {
  return {
    threadId,
    id: item.id,
    userId,
    kind: item.kind,
    title: item.title,
    details: item.details ?? null,
    status: item.status,
    relatedIds: item.related_ids ?? null,
    position,
    createdAt: Date.parse(item.created_at),
    updatedAt: Date.parse(item.updated_at),
  };
}

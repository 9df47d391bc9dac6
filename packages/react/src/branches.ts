import type { StoredMessage } from "@agentwire-chat/protocol";

/** Per shown message with alternatives: all its siblings (oldest first) and which of them is shown. */
export type Branches = Record<string, { ids: string[]; index: number }>;

/** The branch arrows of the shown rows, from their `sibling_ids` (set by `GET /api/threads/:id/messages`). */
export function branchesOf(rows: readonly StoredMessage[]): Branches {
  const branches: Branches = {};
  for (const row of rows)
    if (row.sibling_ids && row.sibling_ids.length > 1)
      branches[row.id] = { ids: row.sibling_ids, index: row.sibling_ids.indexOf(row.id) };
  return branches;
}

/**
 * The rows a new branch keeps: those through `messageId` (an edit's parent, a regenerated user
 * message); null keeps none (an edit of the first message), undefined all (a message after the leaf).
 */
export function rowsThrough(
  rows: readonly StoredMessage[],
  messageId: string | null | undefined,
): StoredMessage[] {
  if (messageId === undefined) return [...rows];
  const at = messageId === null ? -1 : rows.findIndex((row) => row.id === messageId);
  return messageId !== null && at < 0 ? [...rows] : rows.slice(0, at + 1);
}

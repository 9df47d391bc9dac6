import type { StoredMessage } from "@agentwire-chat/protocol";

/**
 * The thread's rows: the fetched ones joined with those a turn's `message` frames carried, on row ids
 * (docs/protocol.md, "Opening an existing thread"). The turn's first row is where its rows begin among
 * the fetched ones; fetched rows from there on are the turn's, so the frames' copies replace them.
 */
export function joinRows(
  fetched: readonly StoredMessage[],
  turnRows: readonly StoredMessage[],
): StoredMessage[] {
  const first = turnRows[0];
  if (!first) return [...fetched];
  const cut = fetched.findIndex((row) => row.id === first.id);
  const ids = new Set(turnRows.map((row) => row.id));
  const before = (cut >= 0 ? fetched.slice(0, cut) : fetched).filter((row) => !ids.has(row.id));
  return [...before, ...turnRows];
}

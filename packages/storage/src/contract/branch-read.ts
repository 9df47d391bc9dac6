import type { StoredMessage } from "@agentwire-chat/protocol";
import { branchLeaf, messageTree, pathTo, siblingsOf, type TreeLink } from "./branch-path.js";
import { toStoredMessage } from "./message-rows.js";
import type { Branch, BranchQuery } from "./repositories.js";
import type { MessageRow } from "./rows.js";

/**
 * Reads one branch of a thread, for either dialect: from the thread's light links and current leaf,
 * finds the path (branch-path.ts), then asks `rowsOf` for the full rows of only the ids it returns
 * (all of the path, or those after `afterId` when it is on it). Undefined when `leafId` is not a
 * message of the thread.
 */
export async function readBranch(
  links: readonly TreeLink[],
  currentLeafId: string | null,
  query: BranchQuery,
  rowsOf: (ids: string[]) => Promise<MessageRow[]> | MessageRow[],
): Promise<Branch | undefined> {
  const tree = messageTree(links);
  const leafId = branchLeaf(tree, currentLeafId, query.leafId);
  if (leafId === undefined) return undefined;
  const ids = pathTo(tree, leafId);
  const after = query.afterId === undefined ? -1 : ids.indexOf(query.afterId);
  const wanted = ids.slice(after + 1);
  const rows = new Map<string, MessageRow>();
  if (wanted.length > 0) for (const row of await rowsOf(wanted)) rows.set(row.id, row);
  const messages: StoredMessage[] = [];
  for (const id of wanted) {
    const row = rows.get(id);
    const link = tree.byId.get(id);
    if (!row || !link) continue;
    const siblings = siblingsOf(tree, link);
    messages.push(siblings ? { ...toStoredMessage(row), sibling_ids: siblings } : toStoredMessage(row));
  }
  return { leafId, ids, messages };
}

/** What finding a branch needs of each message of a thread: its place in the tree and its age. */
export type TreeLink = { id: string; parentId: string | null; seq: number };

/** A thread's messages as a tree: each message by id, and the children of each parent (oldest first). */
export type MessageTree = {
  byId: Map<string, TreeLink>;
  /** Children by parent id; the key null holds the thread's first messages. */
  children: Map<string | null, TreeLink[]>;
  /** The newest message of the thread (its highest seq). */
  newest: TreeLink | undefined;
};

/** Builds the tree of a thread's messages (any order). */
export function messageTree(links: readonly TreeLink[]): MessageTree {
  const sorted = [...links].sort((a, b) => a.seq - b.seq);
  const byId = new Map<string, TreeLink>();
  const children = new Map<string | null, TreeLink[]>();
  for (const link of sorted) {
    byId.set(link.id, link);
    const siblings = children.get(link.parentId);
    if (siblings) siblings.push(link);
    else children.set(link.parentId, [link]);
  }
  return { byId, children, newest: sorted.at(-1) };
}

/**
 * The newest leaf under a message (itself when it has none): a child always comes after its parent,
 * so the descendant with the highest seq is a leaf.
 */
export function newestLeafOf(tree: MessageTree, id: string): TreeLink | undefined {
  const start = tree.byId.get(id);
  if (!start) return undefined;
  let newest = start;
  const stack = [start];
  for (let link = stack.pop(); link; link = stack.pop()) {
    if (link.seq > newest.seq) newest = link;
    for (const child of tree.children.get(link.id) ?? []) stack.push(child);
  }
  return newest;
}

/** The ids from the thread's first message down to `leafId`, in order (empty for null). */
export function pathTo(tree: MessageTree, leafId: string | null): string[] {
  const path: string[] = [];
  for (let link = leafId === null ? undefined : tree.byId.get(leafId); link; ) {
    path.push(link.id);
    link = link.parentId === null ? undefined : tree.byId.get(link.parentId);
  }
  return path.reverse();
}

/** The message's alternatives (itself included, oldest first), or undefined when it has none. */
export function siblingsOf(tree: MessageTree, link: TreeLink): string[] | undefined {
  const siblings = tree.children.get(link.parentId);
  return siblings && siblings.length > 1 ? siblings.map((s) => s.id) : undefined;
}

/**
 * Where a branch read ends: the newest leaf under `leafId` when given (undefined when the thread has
 * no such message), else the thread's current leaf (or, for a thread stored before branches, its newest message).
 */
export function branchLeaf(
  tree: MessageTree,
  currentLeafId: string | null,
  leafId?: string,
): string | null | undefined {
  if (leafId !== undefined) return newestLeafOf(tree, leafId)?.id;
  if (currentLeafId !== null && tree.byId.has(currentLeafId)) return currentLeafId;
  return tree.newest?.id ?? null;
}

import type { ExecutionTreeSnapshot } from "@agentwire-chat/protocol";
import type { SuspendedTurn } from "@agentwire-chat/storage";

/**
 * A suspended turn's tree with the wait counted: each call still open (the calls that wait on the
 * user, and the subtasks above them) ran on while the user thought, so its duration so far grows by
 * the time since the suspension was stored. `at` is the wall clock now (epoch ms).
 */
export function treeAfterWait(saved: SuspendedTurn, at: number = Date.now()): ExecutionTreeSnapshot {
  const waited = saved.suspendedAt === undefined ? 0 : Math.max(0, at - saved.suspendedAt);
  if (waited === 0) return saved.tree;
  const nodes = saved.tree.nodes.map((node) =>
    isOpen(node) ? { ...node, duration_ms: node.duration_ms + waited } : node,
  );
  return { ...saved.tree, nodes };
}

/** How long each open call of a tree has been open, by id (what the resumed loop's `end`s count from). */
export function openDurations(tree: ExecutionTreeSnapshot): Record<string, number> {
  return Object.fromEntries(tree.nodes.filter(isOpen).map((node) => [node.id, node.duration_ms]));
}

/** Every end carries a result or an error: a node with neither was still open when the turn waited. */
function isOpen(node: ExecutionTreeSnapshot["nodes"][number]): boolean {
  return node.result_preview === undefined && node.is_error !== true && node.status !== "interrupted";
}

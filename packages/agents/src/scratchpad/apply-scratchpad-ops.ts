import type { ScratchpadItem, ScratchpadOp } from "@agentwire-chat/protocol";

/** Cap on the items of one thread's scratchpad (closed ones count: nothing is ever deleted). */
export const MAX_SCRATCHPAD_ITEMS = 300;

/** What a batch of ops does to a scratchpad: the new items and the changed existing ones, each whole. */
export type ScratchpadChanges = {
  /** Items the batch created, with their new ids, in the order they were added. */
  added: ScratchpadItem[];
  /** Existing items the batch changed, in their scratchpad order, in their final state. */
  updated: ScratchpadItem[];
};

/** The outcome of a batch: the changes, or why the whole batch is refused (nothing applied). */
export type ScratchpadApplyResult = ({ ok: true } & ScratchpadChanges) | { ok: false; message: string };

/**
 * Applies ops to a thread's current items, in order, all or nothing. New ids continue the thread's
 * "s1", "s2"… sequence; an op naming an id the thread does not have refuses the batch with a message
 * the model can act on. Pure: both database dialects and the in-memory store share it.
 */
export function applyScratchpadOps(
  current: readonly ScratchpadItem[],
  ops: readonly ScratchpadOp[],
  now: number = Date.now(),
): ScratchpadApplyResult {
  const stamp = new Date(now).toISOString();
  const byId = new Map(current.map((item) => [item.id, item]));
  const added: ScratchpadItem[] = [];
  const touched = new Set<string>();
  let next = nextNumber(current);
  for (const [index, op] of ops.entries()) {
    if (op.op === "add") {
      if (byId.size >= MAX_SCRATCHPAD_ITEMS) {
        return refuse(
          index,
          op,
          `the scratchpad is full (${MAX_SCRATCHPAD_ITEMS} items); update or resolve existing items instead`,
        );
      }
      const item: ScratchpadItem = {
        id: `s${next++}`,
        kind: op.kind,
        title: op.title,
        ...(op.details !== undefined && { details: op.details }),
        status: "active",
        ...(op.related_ids !== undefined && { related_ids: op.related_ids }),
        created_at: stamp,
        updated_at: stamp,
      };
      byId.set(item.id, item);
      added.push(item);
      continue;
    }
    const before = byId.get(op.id);
    if (!before) {
      const known = [...byId.keys()];
      return refuse(
        index,
        op,
        `no scratchpad item "${op.id}" in this thread (ids: ${known.length ? known.slice(-50).join(", ") : "none yet"})`,
      );
    }
    const after: ScratchpadItem =
      op.op === "update"
        ? {
            ...before,
            ...(op.kind !== undefined && { kind: op.kind }),
            ...(op.title !== undefined && { title: op.title }),
            ...(op.details !== undefined && { details: op.details }),
            ...(op.related_ids !== undefined && { related_ids: op.related_ids }),
            updated_at: stamp,
          }
        : { ...before, status: op.op === "resolve" ? "resolved" : "discarded", updated_at: stamp };
    byId.set(op.id, after);
    const fresh = added.findIndex((item) => item.id === op.id);
    if (fresh >= 0) added[fresh] = after;
    else touched.add(op.id);
  }
  const updated = current
    .filter((item) => touched.has(item.id))
    .map((item) => byId.get(item.id) as ScratchpadItem);
  return { ok: true, added, updated };
}

/** The number after the highest "sN" id of the thread (ids are never reused, nothing is deleted). */
function nextNumber(items: readonly ScratchpadItem[]): number {
  let max = 0;
  for (const item of items) {
    const n = /^s(\d+)$/.exec(item.id)?.[1];
    if (n !== undefined) max = Math.max(max, Number(n));
  }
  return max + 1;
}

function refuse(index: number, op: ScratchpadOp, why: string): ScratchpadApplyResult {
  return { ok: false, message: `op ${index + 1} (${op.op}): ${why}; nothing was applied` };
}

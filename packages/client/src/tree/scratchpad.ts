import type { ScratchpadItem } from "@agentwire-chat/protocol";
import type { ThreadView } from "./thread-view.js";

/**
 * Merges items into a thread's scratchpad, replacing by id. The HTTP list and live patches can
 * arrive in either order, so of two copies of an item the later `updated_at` wins (a tie goes to
 * the incoming copy); new items keep their arrival order after the known ones.
 */
export function mergeScratchpad(
  current: ScratchpadItem[] | undefined,
  incoming: ScratchpadItem[],
): ScratchpadItem[] {
  const items = [...(current ?? [])];
  for (const item of incoming) {
    const at = items.findIndex((i) => i.id === item.id);
    if (at < 0) items.push(item);
    else if ((items[at]?.updated_at ?? "") <= item.updated_at) items[at] = item;
  }
  return items;
}

/** A thread view with items merged into its scratchpad. */
export function withScratchpad(view: ThreadView, incoming: ScratchpadItem[]): ThreadView {
  return { ...view, scratchpad: mergeScratchpad(view.scratchpad, incoming) };
}

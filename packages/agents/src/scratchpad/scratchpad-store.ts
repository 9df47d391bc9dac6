import type { ScratchpadItem, ScratchpadOp } from "@agentwire-chat/protocol";
import { applyScratchpadOps } from "./apply-scratchpad-ops.js";

/**
 * One thread's scratchpad as the scratchpad_update tool sees it: the server binds it to the turn's own
 * user and thread, so a tool can never name another. `apply` runs the ops all or nothing and returns
 * the items it changed, whole; it rejects with ScratchpadOpError when an op is refused.
 */
export interface ScratchpadStore {
  apply(ops: ScratchpadOp[]): Promise<ScratchpadItem[]>;
}

/** A batch of scratchpad ops refused as a whole (an unknown id, a full scratchpad); nothing was applied. */
export class ScratchpadOpError extends Error {
  override readonly name = "ScratchpadOpError";
}

/** A ScratchpadStore for one thread in memory, for tests and single-process use. */
export class InMemoryScratchpadStore implements ScratchpadStore {
  #items: ScratchpadItem[] = [];

  /** Every item, in insertion order. */
  list(): ScratchpadItem[] {
    return [...this.#items];
  }

  async apply(ops: ScratchpadOp[]): Promise<ScratchpadItem[]> {
    const result = applyScratchpadOps(this.#items, ops);
    if (!result.ok) throw new ScratchpadOpError(result.message);
    const updated = new Map(result.updated.map((item) => [item.id, item]));
    this.#items = [...this.#items.map((item) => updated.get(item.id) ?? item), ...result.added];
    return [...result.updated, ...result.added];
  }
}

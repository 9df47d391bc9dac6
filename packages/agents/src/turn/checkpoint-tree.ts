import type { Checkpoint, CheckpointLevel } from "./checkpoint.js";

/**
 * Folds the levels' checkpoint events of one turn into its Checkpoint: the root's latest state, with
 * the latest state of each subtask still running below it (at any depth) under its call id. A level
 * whose call has finished or was left behind by a newer step drops out.
 */
export class CheckpointTree {
  private levels = new Map<string | null, CheckpointLevel>();

  /** `from`: the checkpoint a turn continues from after a crash, until its levels store newer ones. */
  constructor(
    private readonly model: string,
    from?: Checkpoint,
  ) {
    if (from) this.seed(from.root);
  }

  private seed({ nested, ...level }: CheckpointLevel): void {
    this.levels.set(level.parentId, level);
    for (const below of Object.values(nested ?? {})) this.seed(below);
  }

  /** Takes one level's state; the turn's checkpoint now, or undefined while the root has none. */
  add(level: CheckpointLevel): Checkpoint | undefined {
    this.levels.set(level.parentId, level);
    const root = this.levels.get(null);
    if (!root) return undefined;
    const kept = new Map<string | null, CheckpointLevel>([[null, root]]);
    const tree = this.fold(root, kept);
    // Only what the tree still reaches: memory stays bounded by the running subtasks.
    this.levels = kept;
    return { version: 1, model: this.model, root: tree };
  }

  private fold(level: CheckpointLevel, kept: Map<string | null, CheckpointLevel>): CheckpointLevel {
    const nested: Record<string, CheckpointLevel> = {};
    for (const id of openCalls(level)) {
      const below = this.levels.get(id);
      if (!below) continue;
      kept.set(id, below);
      nested[id] = this.fold(below, kept);
    }
    return Object.keys(nested).length > 0 ? { ...level, nested } : level;
  }
}

/** The ids of the calls of the level's last assistant message that have no result yet. */
export function openCalls(level: CheckpointLevel): string[] {
  const last = level.messages.at(-1);
  if (last?.role !== "assistant") return [];
  const done = new Set(level.results.map((r) => r.toolCallId));
  return (last.toolCalls ?? []).filter((c) => !done.has(c.id)).map((c) => c.id);
}

import type { BudgetUsed, SuspendedState } from "@agentwire/agents";
import type { ChatContext, ExecutionTreeSnapshot, TurnUsage } from "@agentwire/protocol";

/**
 * What a turn waiting on the user keeps in `turns.suspended_state`: enough to continue it in this
 * process or after a restart. Plain JSON.
 */
export type SavedTurn = {
  version: 1;
  state: SuspendedState;
  tree: ExecutionTreeSnapshot;
  /** Usage of the segments before the suspension. */
  usage: TurnUsage;
  /** Budget counters so far: a resumed turn stays inside the same tree-wide limits. */
  budgetUsed: BudgetUsed;
  provider: string;
  model: string;
  chatContext: ChatContext;
  memoryEnabled: boolean;
  /** The root's text so far, kept if the turn is stopped while it waits. */
  text: string;
};

/** Reads a stored blob back, or undefined when it is not a SavedTurn this version understands. */
export function readSavedTurn(blob: unknown): SavedTurn | undefined {
  if (typeof blob !== "object" || blob === null) return undefined;
  const saved = blob as Partial<SavedTurn>;
  if (saved.version !== 1 || !saved.state || !saved.tree || !saved.provider || !saved.model) return undefined;
  return saved as SavedTurn;
}

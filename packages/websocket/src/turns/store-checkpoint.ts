import { type CheckpointLevel, CheckpointTree, type LoopContext } from "@agentwire-chat/agents";
import type { TurnCheckpointInput } from "@agentwire-chat/storage";
import type { TurnSegment } from "./turn-segment.js";

/**
 * The turn driver's hand for the loop's checkpoint events: folds each level's state into the turn's
 * checkpoint and gives it, with what the turn runs with, to the frame log, which stores it in the
 * commit of the frames appended before it. Encoded once here; nothing is sent to clients.
 */
export function checkpointStore(run: TurnSegment, ctx: LoopContext): (level: CheckpointLevel) => void {
  const tree = new CheckpointTree(run.model, run.checkpoint);
  return (level) => {
    const state = tree.add(level);
    if (!state) return;
    const saved: TurnCheckpointInput = {
      version: 1,
      state,
      budgetUsed: ctx.budget.used,
      provider: run.provider,
      model: run.model,
      chatContext: run.chatContext,
      memoryEnabled: run.memoryEnabled,
    };
    run.turn.checkpoint(JSON.stringify(saved));
  };
}

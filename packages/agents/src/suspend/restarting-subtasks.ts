import { RUN_SUBTASK } from "../subtask/run-subtask-tool.js";
import type { Checkpoint, CheckpointLevel } from "../turn/checkpoint.js";
import { openCalls } from "../turn/checkpoint-tree.js";

/** A subtask that continuing a crashed turn streams again: from its start, or from its own last step. */
export type RestartingSubtask = { id: string; fromStart: boolean };

/**
 * The subtasks, at any depth, whose model call `runAgentLoop` from a checkpoint makes again: an open
 * run_subtask call with no level of its own runs again from its start; one whose level has no call
 * open was in a model call. What each streamed since its last nested call was cut.
 */
export function restartingSubtasks(checkpoint: Checkpoint): RestartingSubtask[] {
  const found: RestartingSubtask[] = [];
  const visit = (level: CheckpointLevel) => {
    const open = new Set(openCalls(level));
    const last = level.messages.at(-1);
    const calls = last?.role === "assistant" ? (last.toolCalls ?? []) : [];
    for (const call of calls) {
      if (!open.has(call.id) || call.name !== RUN_SUBTASK) continue;
      const below = level.nested?.[call.id];
      if (!below) {
        found.push({ id: call.id, fromStart: true });
        continue;
      }
      if (openCalls(below).length === 0) found.push({ id: call.id, fromStart: false });
      visit(below);
    }
  };
  visit(checkpoint.root);
  return found;
}

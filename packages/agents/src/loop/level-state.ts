import type { ToolModelMessage } from "../providers/model-message.js";
import type { CheckpointEvent, CheckpointLevel } from "../turn/checkpoint.js";
import type { Level } from "./level.js";

/** The level as plain JSON (what a suspension or a checkpoint keeps of it), with the batch's finished `results`. */
export function levelState(level: Level, results: ToolModelMessage[]): CheckpointLevel {
  const { params } = level;
  return {
    depth: level.depth,
    parentId: level.parentId,
    systemPrompt: params.systemPrompt,
    toolNames: level.toolNames,
    ...(params.outputSchema !== undefined && { outputSchema: params.outputSchema }),
    ...(params.title !== undefined && { title: params.title }),
    ...(params.operation !== undefined && { operation: params.operation }),
    messages: level.messages.slice(),
    results,
    iterationsUsed: level.iterations,
    maxIterations: level.maxIterations,
  };
}

/** The level's checkpoint after a completed model call, tool call or tool batch. */
export function checkpointEvent(level: Level, results: ToolModelMessage[] = []): CheckpointEvent {
  return { type: "checkpoint", level: levelState(level, results) };
}

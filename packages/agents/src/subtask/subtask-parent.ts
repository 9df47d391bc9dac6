import type { LlmOperation } from "@agentwire-chat/protocol";
import type { ParallelPermits } from "../budget/parallel-permits.js";
import type { TurnBudget } from "../budget/turn-budget.js";
import type { ModelMessage } from "../providers/model-message.js";
import type { Tool } from "../tools/tool.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { UsageAccumulator } from "../usage/usage-accumulator.js";

/** A subtask's level as its parent asks for it; the parent adds its provider, model, turn context and signal. */
export type ChildLevel = {
  systemPrompt: string;
  history: readonly ModelMessage[];
  tools: Tool[];
  depth: number;
  parentId: string;
  title: string;
  outputSchema?: Record<string, unknown>;
  /** What its model calls are for, when not `subtask` (a plan step's). */
  operation?: LlmOperation;
  offer: (event: LoopEvent) => boolean;
};

/**
 * What running a subtask needs of the level whose call runs it (the loop's Level is one). The child
 * runs on `runChild`, the parent's own loop handed down, so this folder never imports the loop.
 */
export type SubtaskParent = {
  depth: number;
  inheritable: readonly Tool[];
  budget: TurnBudget;
  usage: UsageAccumulator;
  signal: AbortSignal;
  now: () => number;
  ctx: { guidance?: string; permits: ParallelPermits };
  runChild: (child: ChildLevel) => AsyncGenerator<LoopEvent, LoopResult>;
};

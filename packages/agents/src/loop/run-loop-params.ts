import type { LlmOperation } from "@agentwire-chat/protocol";
import type { ModelMessage } from "../providers/model-message.js";
import type { ModelSettings } from "../providers/model-settings.js";
import type { Provider } from "../providers/provider.js";
import type { ToolCallEvent } from "../providers/provider-event.js";
import type { Tool } from "../tools/tool.js";
import type { ContextReport } from "../turn/context-report.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { LoopContext } from "./loop-context.js";

/** One level of the turn tree: the root (depth 0) or a subtask. */
export type RunLoopParams = {
  provider: Provider;
  model: string;
  systemPrompt: string;
  /** The conversation so far; never mutated. */
  history: readonly ModelMessage[];
  /** The level's toolbelt; `run_subtask` and `finish_subtask` in it are run by the loop itself. */
  tools: readonly Tool[];
  ctx: LoopContext;
  /** 0 at the root. */
  depth?: number;
  /** The run_subtask call this level runs for; null at the root. */
  parentId?: string | null;
  /** What this level's model calls are for; default `turn` at depth 0, else `subtask`. */
  operation?: LlmOperation;
  /** Defaults to the budget's MAX_ITERATIONS_PER_LEVEL. */
  maxIterations?: number;
  /** Cancels the level and everything below it (the user's stop). */
  signal?: AbortSignal;
  /** A subtask with an output schema must end by calling finish_subtask with a valid result. */
  outputSchema?: Record<string, unknown>;
  /** The subtask's title (kept in the suspended state). */
  title?: string;
  maxTokens?: number;
  /**
   * The operator's model settings (context scope over the model's table entry), the same at every
   * level and helper call of the turn; `max_output_tokens` replaces `maxTokens`.
   */
  settings?: ModelSettings;
  /** Model turns this level already used before it was suspended. */
  iterationsUsed?: number;
  /**
   * Calls of the last assistant message in `history` to run before the first model call (a turn
   * continued from a checkpoint after a crash); absent, the level starts with a model call.
   */
  pendingCalls?: ToolCallEvent[];
  /**
   * The root's context budget and what its summary and scratchpad hold: set, the level prunes its
   * history to `budget` and yields a `context_usage` frame before each of its model calls.
   */
  context?: ContextReport;
  /**
   * Takes a text chunk of this level past its generator, in order with what the level yielded before
   * (true), or declines it (false: yield it). Set by the one who drains a child level; the root's comes
   * from `ctx.direct`.
   */
  offer?: (event: LoopEvent) => boolean;
};

/** The loop one level runs on: runLevel, handed to whoever runs a level below it. */
export type RunLevel = (params: RunLoopParams) => AsyncGenerator<LoopEvent, LoopResult>;

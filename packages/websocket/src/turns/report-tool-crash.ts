import type { ToolCrash } from "@agentwire-chat/agents";
import type { TurnRun } from "./turn-run.js";

/**
 * Logs a tool that threw at `error` (tool, user, thread, turn, tree node, the ref the model and
 * clients were given, and the stack) and counts it; the operator finds the line by its ref.
 */
export function reportToolCrash(run: TurnRun, crash: ToolCrash): void {
  const { turn } = run;
  const err = crash.error instanceof Error ? crash.error : new Error(String(crash.error));
  run.logger.error(
    {
      err,
      ref: crash.ref,
      tool: crash.tool,
      user_id: turn.userId,
      thread_id: turn.threadId,
      turn_id: turn.turnId,
      node_id: crash.toolCallId,
      parent_id: crash.parentId,
      depth: crash.depth,
    },
    `tool ${crash.tool} threw (ref ${crash.ref})`,
  );
  run.observer?.toolCrashed?.(crash.tool);
}

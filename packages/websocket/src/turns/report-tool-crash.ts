import type { ToolCrash } from "@agentwire-chat/agents";
import { redactText } from "../logging/redact-text.js";
import type { TurnSegment } from "./turn-segment.js";

/**
 * Logs a tool that threw at `error` (tool, user, thread, turn, tree node, the ref the model and
 * clients were given, and the stack, secrets in them redacted) and counts it; the operator finds the line by its ref.
 */
export function reportToolCrash(run: TurnSegment, crash: ToolCrash): void {
  const { turn } = run;
  const thrown = crash.error instanceof Error ? crash.error : new Error(String(crash.error));
  // The operator needs the message and stack to find the bug, not a secret the bug echoed into them.
  const err = {
    type: thrown.name,
    message: redactText(thrown.message),
    stack: redactText(thrown.stack ?? ""),
  };
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

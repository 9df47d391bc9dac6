import type { ToolCallUpdateFrame, UnstampedFrame } from "@agentwire-chat/protocol";

type ToolCallUpdateEvent = UnstampedFrame<ToolCallUpdateFrame>;

export type AttemptNodeOptions = {
  /** The node's id, unique in the turn. */
  id: string;
  attempt: number;
  parentId: string;
  depth: number;
  signal: AbortSignal;
  emit: (event: ToolCallUpdateEvent) => void;
};

/** One open `plan_workflow` node; `end` closes it once, later calls are ignored. */
export type AttemptNode = { end(result: unknown, isError: boolean): void; readonly ended: boolean };

/**
 * Starts the node of one planner attempt and guarantees it exactly one `end`. On a stop (the user's
 * or the budget's) it ends at once, from the abort listener: the loop stops waiting for a stopped
 * tool and sends the tool call's own `end` right after, so a later end would come too late.
 */
export function openAttemptNode(opts: AttemptNodeOptions): AttemptNode {
  const started = performance.now();
  const nesting = { parent_id: opts.parentId, depth: opts.depth };
  let ended = false;
  const end = (result: unknown, isError: boolean) => {
    if (ended) return;
    ended = true;
    opts.signal.removeEventListener("abort", onAbort);
    opts.emit({
      type: "tool_call_update",
      tool_call_id: opts.id,
      name: "plan_workflow",
      status: "end",
      result,
      is_error: isError,
      duration_ms: Math.max(0, performance.now() - started),
      ...nesting,
    });
  };
  const onAbort = () => end("stopped", true);
  opts.emit({
    type: "tool_call_update",
    tool_call_id: opts.id,
    name: "plan_workflow",
    status: "start",
    args: { attempt: opts.attempt },
    title:
      opts.attempt === 1 ? "Planning the workflow" : `Repairing the workflow (round ${opts.attempt - 1})`,
    ...nesting,
  });
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener("abort", onAbort, { once: true });
  return {
    end,
    get ended() {
      return ended;
    },
  };
}

import { type Checkpoint, restartingSubtasks, type ToolCallUpdateEvent } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";

/**
 * The `start` frames, each with its `attempt`, that say which subtasks a continued turn streams again
 * (docs/protocol.md, A crashed turn continues): a subtask's first start again, numbered after the
 * attempts its frames already count. A subtask whose start is not in the frames gets none.
 */
export function restartMarkers(
  frames: readonly ServerFrame[],
  checkpoint: Checkpoint,
): ToolCallUpdateEvent[] {
  const starts = new Map<string, ToolCallUpdateEvent>();
  const attempts = new Map<string, number>();
  for (const frame of frames) {
    if (frame.type !== "tool_call_update" || frame.status !== "start") continue;
    if (frame.attempt !== undefined) attempts.set(frame.tool_call_id, frame.attempt);
    else if (!starts.has(frame.tool_call_id)) {
      const { seq: _seq, thread_id: _thread, ...start } = frame;
      starts.set(frame.tool_call_id, start);
    }
  }
  return restartingSubtasks(checkpoint).flatMap(({ id }) => {
    const start = starts.get(id);
    return start ? [{ ...start, attempt: (attempts.get(id) ?? 1) + 1 }] : [];
  });
}

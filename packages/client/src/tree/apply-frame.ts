import type { ServerFrame } from "@agentwire-chat/protocol";
import { reduceFrame } from "./reduce-frame.js";
import type { ThreadView } from "./thread-view.js";

/**
 * The seq gate in front of the reducer. Every turn frame carries a per-thread `seq` without gaps:
 * a frame at or below the last applied seq is a duplicate (a resume replay overlapping what we saw)
 * and is dropped; a frame beyond a gap waits in `pending` until the frames before it arrive.
 * Frames without seq (chat_resumed, pong, errors about a request) are applied at once. A chunk
 * merged for a slow socket stands for `seq_start`..`seq`: it follows the frame before `seq_start`.
 */
export function applyFrame<V extends ThreadView>(view: V, frame: ServerFrame): V {
  // The reducer copies every field it does not own, so an app's own fields on the view survive.
  return applyOne(view, frame) as V;
}

function applyOne(view: ThreadView, frame: ServerFrame): ThreadView {
  const seq = "seq" in frame ? frame.seq : undefined;
  if (seq === undefined) {
    const next = reduceFrame(view, frame);
    return frame.type === "chat_resumed" ? flush(next) : next;
  }
  if (view.lastSeq !== null && seq <= view.lastSeq) return view;
  if (view.lastSeq !== null && firstSeqOf(frame) > view.lastSeq + 1) {
    if (view.pending.some((f) => seqOf(f) === seq)) return view;
    const pending = [...view.pending, frame].sort((a, b) => seqOf(a) - seqOf(b));
    return { ...view, pending };
  }
  // No baseline yet (a thread opened from history): the first framed event sets it.
  return drain({ ...reduceFrame(view, frame), lastSeq: seq });
}

/** Applies frames in turn through the seq gate. */
export function applyFrames<V extends ThreadView>(view: V, frames: readonly ServerFrame[]): V {
  return frames.reduce<V>(applyFrame, view);
}

/** True while frames wait behind a gap: the client should `resume_chat` from `lastSeq`. */
export function hasGap(view: ThreadView): boolean {
  return view.pending.length > 0;
}

/**
 * Gives up on a gap: after `chat_resumed` the server has sent all it still has, so anything
 * missing is gone and the waiting frames are applied in order.
 */
export function flushPending<V extends ThreadView>(view: V): V {
  return flush(view) as V;
}

function flush(view: ThreadView): ThreadView {
  let next: ThreadView = { ...view, pending: [] };
  for (const frame of view.pending) {
    const seq = seqOf(frame);
    if (next.lastSeq !== null && seq <= next.lastSeq) continue;
    next = { ...reduceFrame(next, frame), lastSeq: seq };
  }
  return next;
}

/** Applies waiting frames that have become contiguous. */
function drain(view: ThreadView): ThreadView {
  let next = view;
  for (;;) {
    const head = next.pending[0];
    if (!head || next.lastSeq === null) return next;
    const seq = seqOf(head);
    const rest = next.pending.slice(1);
    if (seq <= next.lastSeq) next = { ...next, pending: rest };
    else if (firstSeqOf(head) === next.lastSeq + 1)
      next = { ...reduceFrame({ ...next, pending: rest }, head), lastSeq: seq };
    else return next;
  }
}

function seqOf(frame: ServerFrame): number {
  return ("seq" in frame ? frame.seq : undefined) ?? 0;
}

/** The first seq a frame stands for: `seq_start` on merged text, else its own seq. */
function firstSeqOf(frame: ServerFrame): number {
  return (frame.type === "chunk" ? frame.seq_start : undefined) ?? seqOf(frame);
}

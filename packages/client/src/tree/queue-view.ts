import type { QueuedMessage, ServerFrameOf } from "@agentwire-chat/protocol";
import { contentText } from "./content-text.js";
import type { QueuedMessageView, ThreadView } from "./thread-view.js";

/** A view's queue from `GET /api/threads/:id/queue` (after a reload), next first. */
export function queuedFrom(rows: readonly QueuedMessage[]): QueuedMessageView[] {
  return renumber(
    [...rows]
      .sort((a, b) => a.position - b.position)
      .map((q) => ({
        messageId: q.message_id,
        content: contentText(q.content),
        mode: q.mode,
        position: q.position,
      })),
  );
}

/**
 * `message_queued`: the message waits. The frame carries no content: it comes from the optimistic turn
 * the app added for that request (which leaves the turns, since it did not start).
 */
export function onQueued(view: ThreadView, frame: ServerFrameOf<"message_queued">): ThreadView {
  const mine = (t: ThreadView["turns"][number]) =>
    frame.request_id !== undefined && t.requestId === frame.request_id && t.user?.id === undefined;
  const optimistic = view.turns.find(mine);
  const queued = (view.queued ?? []).filter((q) => q.messageId !== frame.message_id);
  const entry = {
    messageId: frame.message_id,
    content:
      optimistic?.user?.text ?? view.queued?.find((q) => q.messageId === frame.message_id)?.content ?? "",
    mode: frame.mode,
    position: frame.position,
  };
  queued.splice(Math.max(0, frame.position - 1), 0, entry);
  return {
    ...view,
    turns: optimistic ? view.turns.filter((t) => t !== optimistic) : view.turns,
    queued: renumber(queued),
  };
}

/** The message left the queue: cancelled, started a turn, or joined the running one as a steer. */
export function unqueue(view: ThreadView, messageId: string): ThreadView {
  if (!view.queued?.some((q) => q.messageId === messageId)) return view;
  return { ...view, queued: renumber(view.queued.filter((q) => q.messageId !== messageId)) };
}

/** Positions follow the order (1 = next): the server's count is the answer's, later changes shift it. */
function renumber(queued: QueuedMessageView[]): QueuedMessageView[] {
  return queued.map((q, i) => (q.position === i + 1 ? q : { ...q, position: i + 1 }));
}

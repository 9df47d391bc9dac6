import type { QueuedMessageView, SendingView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";

const modeNames: Record<QueuedMessageView["mode"], string> = {
  queue: "queued",
  steer: "joins this turn",
  interrupt: "next",
};

/**
 * The messages waiting for the running turn, next first: one chip each with its text and a × that
 * takes it out of the queue. While the turn waits on the user, they wait too, and say so.
 */
export function QueueChips({
  queued,
  sending,
  waitingOnUser,
}: {
  queued: QueuedMessageView[];
  sending: SendingView[];
  waitingOnUser: boolean;
}) {
  const controller = useController();
  if (queued.length === 0 && sending.length === 0) return null;
  return (
    <ul class="queue" aria-label="Queued messages">
      {queued.map((q) => (
        <li key={q.messageId} class="queue-chip" data-mode={q.mode} data-message-id={q.messageId}>
          <span class="queue-text" title={q.content}>
            {q.content}
          </span>
          <span class="queue-note">{waitingOnUser ? "waiting for your answer" : modeNames[q.mode]}</span>
          <button
            type="button"
            class="queue-cancel"
            aria-label="Cancel queued message"
            title="Cancel this message"
            onClick={() => void controller.cancelQueued(q.messageId)}
          >
            ×
          </button>
        </li>
      ))}
      {sending.map((s) => (
        <li key={s.requestId} class="queue-chip sending" data-mode={s.mode}>
          <span class="queue-text" title={s.text}>
            {s.text}
          </span>
          <span class="queue-note">sending…</span>
        </li>
      ))}
    </ul>
  );
}

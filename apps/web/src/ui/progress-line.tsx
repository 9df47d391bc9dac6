import type { ToolCard } from "../state/thread-view.js";

/** A send_update call: the agent's progress message, a line in the turn where it was sent. */
export function ProgressLine({ card }: { card: ToolCard }) {
  const message = card.progress ?? card.argsPreview;
  return (
    <p class="progress-line" data-progress-id={card.id} data-depth={card.depth}>
      <span class="progress-mark" aria-hidden="true">
        ➜
      </span>
      <span class="visually-hidden">Progress: </span>
      <span class="progress-text">{message}</span>
    </p>
  );
}

import { useState } from "preact/hooks";
import type { ToolCard as Card, TurnView } from "../state/thread-view.js";
import { ChildrenView } from "./children-view.js";
import { formatDuration } from "./format.js";

/**
 * A tool call. run_subtask cards are containers holding their subtask's text and tool cards.
 * Cards below the top level start collapsed and open on click (or Enter/Space: it is a button).
 */
export function ToolCardView({ card, turn }: { card: Card; turn: TurnView }) {
  const [open, setOpen] = useState(card.depth === 0);
  const container = card.name === "run_subtask";
  const bodyId = `card-body-${card.id}`;
  const label = container ? (card.title ?? "Subtask") : card.name;
  return (
    <section
      class={`card card-${card.status}${container ? " card-container" : ""}`}
      data-card-id={card.id}
      data-depth={card.depth}
      aria-label={`${container ? "Subtask" : "Tool"} ${label}`}
    >
      <button
        type="button"
        class="card-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <span class="card-caret" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        <StatusIcon status={card.status} />
        <span class="card-name">{label}</span>
        {container && <span class="card-kind">subtask</span>}
        {!container && card.argsPreview && <span class="card-args">{card.argsPreview}</span>}
        <span class="card-duration">{formatDuration(card.durationMs)}</span>
      </button>
      {open && (
        <div class="card-body" id={bodyId}>
          {container ? (
            <ChildrenView children={card.children} turn={turn} />
          ) : (
            card.argsPreview && (
              <p class="card-line">
                <span class="card-label">args</span> <code>{card.argsPreview}</code>
              </p>
            )
          )}
          {card.resultPreview !== undefined && card.resultPreview !== "" && (
            <p class={`card-line${card.status === "error" ? " card-error" : ""}`}>
              <span class="card-label">{card.status === "error" ? "error" : "result"}</span>{" "}
              <code>{card.resultPreview}</code>
            </p>
          )}
        </div>
      )}
    </section>
  );
}

function StatusIcon({ status }: { status: Card["status"] }) {
  if (status === "running") return <span class="spinner" role="img" aria-label="running" />;
  if (status === "error")
    return (
      <span class="status-icon error" role="img" aria-label="failed">
        ✕
      </span>
    );
  return (
    <span class="status-icon ok" role="img" aria-label="done">
      ✓
    </span>
  );
}

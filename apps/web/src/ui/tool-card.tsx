import { nestedCalls } from "@agentwire-chat/client";
import { useState } from "preact/hooks";
import { type ToolCard as Card, type Child, isSubtask, type TurnView } from "../state/thread-view.js";
import { ChildrenView } from "./children-view.js";
import { formatDuration } from "./format.js";

/** What the result line is called, by how the call ended. */
const resultLabels: Record<Card["status"], string> = {
  running: "result",
  complete: "result",
  error: "error",
  stopped: "stopped",
  refused: "not run",
  interrupted: "interrupted",
};

/**
 * A tool call. run_subtask cards are containers holding their subtask's cards (and its text while
 * it runs). Cards below the top level start collapsed and open on click (or Enter/Space: it is a
 * button); a card holding a question that waits for the user opens by itself.
 */
export function ToolCardView({ card, turn }: { card: Card; turn: TurnView }) {
  const [chosen, setOpen] = useState<boolean | undefined>(undefined);
  const open = chosen ?? (card.depth === 0 || waitsForUser(card.children, turn));
  const container = isSubtask(card.name);
  const bodyId = `card-body-${card.id}`;
  const label = container ? (card.title ?? "Subtask") : card.name;
  return (
    <section
      class={`card card-${card.status}${container ? " card-container" : ""}`}
      data-card-id={card.id}
      data-depth={card.depth}
      data-status={card.status}
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
        {container && <span class="card-kind">{card.name === "plan_step" ? "step" : "subtask"}</span>}
        {!container && card.argsPreview && <span class="card-args">{card.argsPreview}</span>}
        {container && <NestedMark card={card} turn={turn} />}
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
            <p class={`card-line card-result-${card.status}`}>
              <span class="card-label">{resultLabels[card.status]}</span>{" "}
              {container ? (
                <span class="card-result">{card.resultPreview}</span>
              ) : (
                <code>{card.resultPreview}</code>
              )}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * What ran inside a subtask, counted as the CLI counts it (the SDK's `nestedCalls`), and a mark when
 * a call inside failed or was refused: a collapsed card shows it on the path down to that call.
 */
function NestedMark({ card, turn }: { card: Card; turn: TurnView }) {
  const below = nestedCalls(turn, card.id);
  if (below.calls === 0) return null;
  const problems = [
    below.failed.length > 0 && `${below.failed.length} failed`,
    below.refused.length > 0 && `${below.refused.length} refused`,
  ].filter(Boolean);
  const named = [...below.failed, ...below.refused].map((c) => c.title ?? c.name).join(", ");
  return (
    <>
      <span class="card-count">
        {below.calls} nested call{below.calls === 1 ? "" : "s"}
      </span>
      {problems.length > 0 && (
        <span class="card-problem" title={`inside: ${named}`}>
          {problems.join(", ")} inside
        </span>
      )}
    </>
  );
}

/** True when a question somewhere below waits for the user's answer. */
function waitsForUser(children: Child[], turn: TurnView): boolean {
  return children.some((child) => {
    if (child.kind !== "card") return false;
    const card = turn.cards[child.id];
    if (!card) return false;
    if (card.name === "ask_user" && turn.questions.some((q) => q.toolCallId === card.id && !q.resolved)) {
      return true;
    }
    return waitsForUser(card.children, turn);
  });
}

const icons: Record<Exclude<Card["status"], "running">, { glyph: string; label: string }> = {
  complete: { glyph: "✓", label: "done" },
  error: { glyph: "✕", label: "error" },
  stopped: { glyph: "■", label: "stopped" },
  refused: { glyph: "⊘", label: "refused" },
  interrupted: { glyph: "↯", label: "interrupted" },
};

/** A card's status as a glyph (a spinner while it runs), labelled for screen readers. */
export function StatusIcon({ status }: { status: Card["status"] }) {
  if (status === "running") return <span class="spinner" role="img" aria-label="running" />;
  const { glyph, label } = icons[status];
  return (
    <span class={`status-icon ${status}`} role="img" aria-label={label}>
      {glyph}
    </span>
  );
}

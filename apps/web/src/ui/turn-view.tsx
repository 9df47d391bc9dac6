import { useState } from "preact/hooks";
import type { TurnView } from "../state/thread-view.js";
import { ChildrenView } from "./children-view.js";
import { useController } from "./controller-context.js";
import { QuestionBox } from "./question-box.js";
import { TurnFooter } from "./turn-footer.js";

/** What a turn needs of its thread for the branch controls. */
export type BranchProps = {
  /** Per message with alternatives: all its siblings, oldest first (ThreadView.siblings). */
  siblings?: Record<string, string[]>;
  /** A turn runs (or waits) on the thread: edits, regenerates and branch switches wait for it. */
  busy?: boolean;
};

/** One user message and the agent's answer to it; questions and approvals sit where they came up. */
export function TurnBlock({
  turn,
  last = false,
  siblings = {},
  busy = false,
}: { turn: TurnView; last?: boolean } & BranchProps) {
  // A question normally shows in its ask_user card; one without a card still has to be answerable.
  const loose = turn.questions.filter((q) => !turn.cards[q.toolCallId]);
  const userId = turn.user?.id ?? turn.userMessageId;
  const answerId = turn.firstAnswerId;
  return (
    <article class="turn" data-turn={turn.key}>
      {turn.user && (
        <UserMessage
          text={turn.user.text}
          id={userId}
          siblings={userId ? siblings[userId] : undefined}
          busy={busy}
        />
      )}
      <div class="bubble assistant">
        <ChildrenView children={turn.root} turn={turn} />
        {turn.steered?.map((s) => (
          <div key={s.id} class="bubble user steered">
            <span class="visually-hidden">You (added while it ran): </span>
            {s.text}
          </div>
        ))}
        {loose.map((q) => (
          <QuestionBox key={q.toolCallId} question={q} />
        ))}
        <TurnFooter turn={turn} last={last} />
        {!turn.running && userId && (answerId || turn.answerMessageId) && (
          <div class="answer-actions">
            {answerId && siblings[answerId] && (
              <BranchArrows id={answerId} siblings={siblings[answerId]} busy={busy} label="answer" />
            )}
            <RegenerateButton userMessageId={userId} busy={busy} />
          </div>
        )}
      </div>
    </article>
  );
}

/** The user's message, with an edit pencil (inline edit) and the arrows of its alternatives. */
function UserMessage({
  text,
  id,
  siblings,
  busy,
}: {
  text: string;
  id: string | undefined;
  siblings: string[] | undefined;
  busy: boolean;
}) {
  const controller = useController();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  if (editing && id) {
    const send = () => {
      const content = draft.trim();
      if (content && controller.edit(id, content)) setEditing(false);
    };
    return (
      <form
        class="edit-message"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <label class="visually-hidden" for={`edit-${id}`}>
          Edit your message
        </label>
        <textarea
          id={`edit-${id}`}
          rows={3}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
            else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
          // biome-ignore lint/a11y/noAutofocus: the user just asked to edit this message
          autoFocus
        />
        <div class="edit-actions">
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <button type="submit" disabled={!draft.trim() || busy}>
            Send
          </button>
        </div>
      </form>
    );
  }
  return (
    <div class="user-message">
      <div class="bubble user">
        <span class="visually-hidden">You: </span>
        {text}
      </div>
      {id && (
        <div class="message-actions">
          {siblings && <BranchArrows id={id} siblings={siblings} busy={busy} label="message" />}
          <button
            type="button"
            class="icon-button"
            aria-label="Edit message"
            title={busy ? "Wait for the turn to end to edit" : "Edit message"}
            disabled={busy}
            onClick={() => {
              setDraft(text);
              setEditing(true);
            }}
          >
            ✎
          </button>
        </div>
      )}
    </div>
  );
}

/** `< 2/3 >`: which of a message's alternatives is shown; the arrows show the others. */
function BranchArrows({
  id,
  siblings,
  busy,
  label,
}: {
  id: string;
  siblings: string[];
  busy: boolean;
  label: string;
}) {
  const controller = useController();
  const index = siblings.indexOf(id);
  const previous = index > 0 ? siblings[index - 1] : undefined;
  const next = index >= 0 && index < siblings.length - 1 ? siblings[index + 1] : undefined;
  return (
    <span class="branch-arrows" data-branch={`${index + 1}/${siblings.length}`}>
      <button
        type="button"
        class="icon-button"
        aria-label="Previous branch"
        disabled={busy || previous === undefined}
        onClick={() => previous && void controller.selectBranch(previous)}
      >
        ‹
      </button>
      <span class="branch-index">
        <span aria-hidden="true">
          {index + 1}/{siblings.length}
        </span>
        <span class="visually-hidden">
          {label} {index + 1} of {siblings.length}
        </span>
      </span>
      <button
        type="button"
        class="icon-button"
        aria-label="Next branch"
        disabled={busy || next === undefined}
        onClick={() => next && void controller.selectBranch(next)}
      >
        ›
      </button>
    </span>
  );
}

function RegenerateButton({ userMessageId, busy }: { userMessageId: string; busy: boolean }) {
  const controller = useController();
  return (
    <button
      type="button"
      class="icon-button"
      aria-label="Regenerate"
      title={busy ? "Wait for the turn to end to regenerate" : "Answer this message again"}
      disabled={busy}
      onClick={() => controller.regenerate(userMessageId)}
    >
      ↻
    </button>
  );
}

import { useState } from "preact/hooks";
import { questionText } from "../state/asking-subtask.js";
import type { QuestionView, ToolCard, TurnView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";

/**
 * ask_user where the agent asked it: a form while the turn waits (the composer answers it too),
 * then the question with its answer. Built from the card alone once answered, so a reload, which
 * has only the stored card, shows the same.
 */
export function QuestionCard({ card, turn }: { card: ToolCard; turn: TurnView }) {
  const asked = turn.questions.find((q) => q.toolCallId === card.id);
  // Parallel subtasks may ask at once: the question says which one asks.
  const question = questionText(turn, card.id, asked?.question ?? card.question ?? card.argsPreview);
  if (asked && !asked.resolved && card.status === "running") {
    return <QuestionForm toolCallId={card.id} question={question} cardId={card.id} depth={card.depth} />;
  }
  const answered = card.status === "complete" ? card.resultPreview : asked?.answer;
  return (
    <section
      class="question resolved"
      data-card-id={card.id}
      data-depth={card.depth}
      data-status={card.status}
    >
      <p class="question-text">{question}</p>
      {answered !== undefined ? (
        <p class="question-answer">You answered: {answered}</p>
      ) : (
        card.status !== "running" && (
          <p class="question-answer muted">
            Not answered{card.resultPreview ? ` (${card.resultPreview})` : ""}
          </p>
        )
      )}
    </section>
  );
}

/** A question the server sent without an ask_user card to hold it (a damaged or partial stream). */
export function QuestionBox({ question }: { question: QuestionView }) {
  if (!question.resolved)
    return <QuestionForm toolCallId={question.toolCallId} question={question.question} />;
  return (
    <section class="question resolved">
      <p class="question-text">{question.question}</p>
      {question.answer !== undefined && <p class="question-answer">You answered: {question.answer}</p>}
    </section>
  );
}

function QuestionForm({
  toolCallId,
  question,
  cardId,
  depth,
}: {
  toolCallId: string;
  question: string;
  cardId?: string;
  depth?: number;
}) {
  const controller = useController();
  const [text, setText] = useState("");
  const inputId = `answer-${toolCallId}`;
  return (
    <form
      class="question"
      data-card-id={cardId}
      data-depth={depth}
      data-status={cardId === undefined ? undefined : "running"}
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) controller.answer(toolCallId, text.trim());
      }}
    >
      <label for={inputId} class="question-text">
        {question}
      </label>
      <p class="muted question-hint">Answer here or in the message box below.</p>
      <div class="row">
        <input id={inputId} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" disabled={!text.trim()}>
          Answer
        </button>
      </div>
    </form>
  );
}

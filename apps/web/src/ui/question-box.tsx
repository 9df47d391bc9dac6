import { useState } from "preact/hooks";
import type { QuestionView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";

/** The agent's ask_user question, answered inline; the turn waits for it. */
export function QuestionBox({ question }: { question: QuestionView }) {
  const controller = useController();
  const [text, setText] = useState("");
  const inputId = `answer-${question.toolCallId}`;
  if (question.resolved) {
    return (
      <div class="question resolved">
        <p class="question-text">{question.question}</p>
        {question.answer !== undefined && <p class="question-answer">You answered: {question.answer}</p>}
      </div>
    );
  }
  return (
    <form
      class="question"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) controller.answer(question.toolCallId, text.trim());
      }}
    >
      <label for={inputId} class="question-text">
        {question.question}
      </label>
      <div class="row">
        <input id={inputId} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" disabled={!text.trim()}>
          Answer
        </button>
      </div>
    </form>
  );
}

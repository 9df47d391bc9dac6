import { useState } from "preact/hooks";
import type { QuestionView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";

/**
 * The one input: no mode selector, no tool picker; the server decides what the agent may use.
 * While the agent waits on a question, what is typed here is the answer (focus stays here, so
 * typing the answer where one is used to typing works).
 */
export function Composer({
  running,
  canStop,
  connected,
  question,
  unavailable,
}: {
  running: boolean;
  canStop: boolean;
  connected: boolean;
  /** The question the running turn waits on: Enter answers it. */
  question?: QuestionView | undefined;
  /** Why nothing can be sent (no provider on the server): the box is disabled and says so. */
  unavailable?: string | undefined;
}) {
  const controller = useController();
  const [text, setText] = useState("");
  const submit = () => {
    const message = text.trim();
    if (!message || unavailable) return;
    if (question) {
      if (connected) {
        controller.answer(question.toolCallId, message);
        setText("");
      }
      return;
    }
    if (running) return;
    if (controller.send(message)) setText("");
  };
  const placeholder = unavailable
    ? "Sending is off: no provider is configured on the server."
    : question
      ? `Your answer to: ${question.question}`
      : "Ask anything. Enter sends, Shift+Enter adds a line.";
  return (
    <form
      class="composer"
      data-mode={question ? "answer" : "message"}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <label for="composer-input" class="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        rows={2}
        placeholder={placeholder}
        disabled={unavailable !== undefined}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
      />
      {question && (
        <button type="submit" disabled={!text.trim() || !connected}>
          Send answer
        </button>
      )}
      {running ? (
        <button type="button" class="danger" onClick={() => controller.stop()} disabled={!canStop}>
          Stop
        </button>
      ) : (
        <button type="submit" disabled={!text.trim() || !connected || unavailable !== undefined}>
          Send
        </button>
      )}
    </form>
  );
}

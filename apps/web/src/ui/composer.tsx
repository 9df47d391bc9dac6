import { useState } from "preact/hooks";
import type { BusyMode } from "../chat-controller.js";
import type { QuestionView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";

/**
 * The one input: no mode selector, no tool picker; the server decides what the agent may use.
 * While the agent waits on a question, what is typed here is the answer (focus stays here, so
 * typing the answer where one is used to typing works). While a turn runs the box stays usable:
 * Enter queues the message for after the turn, "Send now" lets it join the running turn (steer),
 * "Stop & send" stops the turn and sends it next (interrupt).
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
  const message = text.trim();
  const submit = (mode: BusyMode = "queue") => {
    if (!message || unavailable) return;
    if (question && mode === "queue") {
      if (connected) {
        controller.answer(question.toolCallId, message);
        setText("");
      }
      return;
    }
    // Offline the client keeps it for the next socket; while a turn runs the server queues it.
    if (controller.send(message, mode)) setText("");
  };
  const placeholder = unavailable
    ? "Sending is off: no provider is configured on the server."
    : question
      ? `Your answer to: ${question.question}`
      : running
        ? "Enter queues a message for after this turn."
        : "Ask anything. Enter sends, Shift+Enter adds a line.";
  const cannotSend = !message || unavailable !== undefined;
  return (
    <form
      class={`composer${running ? " busy" : ""}`}
      data-mode={question ? "answer" : running ? "queue" : "message"}
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
      <div class="composer-actions">
        {question && (
          <button type="submit" disabled={!message || !connected}>
            Send answer
          </button>
        )}
        {running && !question && (
          <button type="submit" disabled={cannotSend} title="Send after this turn ends">
            Queue
          </button>
        )}
        {running && (
          <button
            type="button"
            aria-label="Send now"
            title="Add this message to the running turn"
            disabled={cannotSend || !canStop}
            onClick={() => submit("steer")}
          >
            Send now
          </button>
        )}
        {running && (
          <button
            type="button"
            class="danger"
            aria-label="Stop and send"
            title="Stop this turn and send the message"
            disabled={cannotSend || !canStop}
            onClick={() => submit("interrupt")}
          >
            Stop &amp; send
          </button>
        )}
        {running ? (
          <button type="button" class="danger" onClick={() => controller.stop()} disabled={!canStop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!message || !connected || unavailable !== undefined}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}

import { useState } from "preact/hooks";
import { useController } from "./controller-context.js";

/** The one input: no mode selector, no tool picker; the server decides what the agent may use. */
export function Composer({
  running,
  canStop,
  connected,
}: {
  running: boolean;
  canStop: boolean;
  connected: boolean;
}) {
  const controller = useController();
  const [text, setText] = useState("");
  const submit = () => {
    const message = text.trim();
    if (!message || running) return;
    if (controller.send(message)) setText("");
  };
  return (
    <form
      class="composer"
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
        placeholder="Ask anything. Enter sends, Shift+Enter adds a line."
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
      />
      {running ? (
        <button type="button" class="danger" onClick={() => controller.stop()} disabled={!canStop}>
          Stop
        </button>
      ) : (
        <button type="submit" disabled={!text.trim() || !connected}>
          Send
        </button>
      )}
    </form>
  );
}

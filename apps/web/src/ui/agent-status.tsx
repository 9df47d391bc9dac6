import type { TurnView } from "../state/thread-view.js";

const words = {
  thinking: "Thinking",
  executing: "Running tools",
  waiting_on_user: "Waiting on you",
  idle: "Idle",
};

/** What the running turn is doing, announced politely to screen readers. */
export function AgentStatus({ turn }: { turn: TurnView | undefined }) {
  const text = turn?.running
    ? `${words[turn.state ?? "thinking"]}${turn.stateDetail ? `: ${turn.stateDetail}` : ""}`
    : "";
  return (
    <output
      class="agent-status"
      aria-live="polite"
      data-state={turn?.running ? (turn.state ?? "thinking") : "idle"}
    >
      {turn?.running && <span class="spinner" aria-hidden="true" />}
      {text}
    </output>
  );
}

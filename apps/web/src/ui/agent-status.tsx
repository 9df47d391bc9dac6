import type { AgentState } from "@agentwire-chat/protocol";
import type { TurnView } from "../state/thread-view.js";

/**
 * What the status line says the agent is doing (the agent_state in turn words, or what the latest
 * frame streamed within it); also `data-state` for styles and tests.
 */
export type Phase = Exclude<AgentState, "resumed"> | "reasoning" | "writing";

const words: Record<Phase, string> = {
  idle: "",
  queued: "Queued: the server is busy",
  thinking: "Thinking…",
  reasoning: "Thinking…",
  writing: "Writing…",
  executing: "Running tools",
  waiting_user: "Waiting for your answer",
};

/**
 * The running turn's phase. The server's agent_state says `thinking` for the whole model call, text
 * included, so the latest frame decides within it: streaming text is `writing`.
 */
export function phaseOf(turn: TurnView | undefined): Phase {
  if (!turn?.running) return "idle";
  if (turn.state === "waiting_user") return "waiting_user";
  if (turn.state === "queued") return "queued";
  if (turn.activity) return turn.activity;
  return turn.state === "executing" ? "executing" : "thinking";
}

/** What the running turn is doing, announced politely to screen readers. */
export function AgentStatus({ turn }: { turn: TurnView | undefined }) {
  const phase = phaseOf(turn);
  // The detail (a tool's name) belongs to the server's state, not to a text run inside it.
  const fromState = phase !== "idle" && phase !== "writing" && phase !== "reasoning";
  const detail = fromState && turn?.stateDetail ? `: ${turn.stateDetail}` : "";
  return (
    <output class="agent-status" aria-live="polite" data-state={phase}>
      {phase !== "idle" && <span class="spinner" aria-hidden="true" />}
      {words[phase]}
      {detail}
    </output>
  );
}

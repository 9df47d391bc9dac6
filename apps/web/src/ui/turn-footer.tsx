import type { BudgetView, TurnView } from "../state/thread-view.js";
import { formatCost, formatCount } from "./format.js";

const budgetNames: Record<BudgetView["reason"], string> = {
  subtasks: "subtask",
  llm_calls: "model call",
  tool_calls: "tool call",
  wall_clock: "time",
  tokens: "token",
  bytes: "output size",
  unknown: "turn",
};

/** How the turn ended: budget, stop, errors, and what it used and cost. */
export function TurnFooter({ turn }: { turn: TurnView }) {
  const { budget, usage } = turn;
  return (
    <>
      {budget && (
        <p class="notice warning" data-budget={budget.reason}>
          The {budgetNames[budget.reason]} budget ran out
          {budget.limit !== undefined &&
            ` (limit ${formatCount(budget.limit)}, used ${formatCount(budget.observed ?? 0)})`}
          . The answer so far is kept.
        </p>
      )}
      {turn.stopped && <p class="notice">Stopped. The answer so far is kept.</p>}
      {turn.errors.map((error) => (
        <p key={error} class="notice error" role="alert">
          {error}
        </p>
      ))}
      {usage && (
        <p class="usage">
          {formatCount(usage.input_tokens)} in · {formatCount(usage.output_tokens)} out
          {usage.cache_read_tokens > 0 && ` · ${formatCount(usage.cache_read_tokens)} cached`} ·{" "}
          {usage.llm_calls} model calls · {usage.tool_calls} tool calls
          {usage.subtasks > 0 && ` · ${usage.subtasks} subtasks`} ·{" "}
          {formatCost(usage.cost_usd, usage.cost_known)}
        </p>
      )}
    </>
  );
}

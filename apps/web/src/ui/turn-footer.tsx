import type { BudgetView, TurnView } from "../state/thread-view.js";
import { useController } from "./controller-context.js";
import { formatCost, formatCount, formatDuration } from "./format.js";
import { countCards, spendWarningLine, usageLine } from "./usage-line.js";

const budgetNames: Record<BudgetView["reason"], string> = {
  subtasks: "subtask",
  llm_calls: "model call",
  tool_calls: "tool call",
  wall_clock: "time",
  tokens: "token",
  bytes: "output size",
  spend_limit: "spend",
  unknown: "turn",
};

/**
 * What the limit was. A counted limit (subtasks, calls) refuses the one past it, so only the limit
 * says something; tokens and bytes are counted after the fact and did go over.
 */
export function budgetDetail({ reason, limit, observed }: BudgetView): string {
  if (limit === undefined) return "";
  switch (reason) {
    case "subtasks":
    case "llm_calls":
    case "tool_calls":
      return ` (limit ${formatCount(limit)})`;
    case "wall_clock":
      return ` (limit ${formatDuration(limit)})`;
    case "spend_limit":
      return ` (limit ${formatCost(limit, true)}, spent ${formatCost(observed ?? 0, true)})`;
    default:
      return ` (limit ${formatCount(limit)}, used ${formatCount(observed ?? 0)})`;
  }
}

/** True when the ended turn stopped at a limit that `continue_turn` lifts (a budget, the iteration limit). */
export function canContinue(turn: TurnView): boolean {
  if (turn.running) return false;
  return turn.budget !== undefined || turn.errors.some((e) => e.includes("iteration_limit"));
}

/** How the turn ended: budget, stop, errors, and what it used and cost; "Continue" on the last turn a limit ended. */
export function TurnFooter({ turn, last = false }: { turn: TurnView; last?: boolean }) {
  const { budget } = turn;
  const usage = usageLine(turn.usage, countCards(turn));
  const spend = spendWarningLine(turn.spendWarning);
  return (
    <>
      {budget && (
        <p class="notice warning" data-budget={budget.reason}>
          The {budgetNames[budget.reason]} budget ran out{budgetDetail(budget)}. The answer so far is kept.
        </p>
      )}
      {turn.stopped && <p class="notice">Stopped. The answer so far is kept.</p>}
      {turn.errors.map((error) => (
        <p key={error} class="notice error" role="alert">
          {error}
        </p>
      ))}
      {last && canContinue(turn) && <ContinueButton />}
      {usage && <p class="usage">{usage}</p>}
      {spend && (
        <p class="notice warning" data-spend-warning={turn.spendWarning?.limit}>
          {spend}
        </p>
      )}
    </>
  );
}

function ContinueButton() {
  const controller = useController();
  return (
    <p class="continue">
      <button type="button" onClick={() => controller.continueTurn()}>
        Continue
      </button>
    </p>
  );
}

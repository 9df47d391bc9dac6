import type { ServerFrameOf } from "@agentwire-chat/protocol";
import type { PlanDecisionView, PlanView } from "./plan-view.js";
import type { ToolCard, TurnView } from "./thread-view.js";
import { patchCard, upsertCard } from "./tree-ops.js";

/** plan_created: the create_plan card now holds the plan; its steps' subtasks nest under it. */
export function onPlanCreated(turn: TurnView, frame: ServerFrameOf<"plan_created">): TurnView {
  return withPlan(turn, frame.tool_call_id, (current) => ({
    reviews: [],
    awaitingDecision: false,
    ...current,
    plan: frame.plan,
    mode: frame.execution_mode,
  }));
}

/**
 * plan_ready_for_review: a draft waits for the user's Approve or Revise, unless this page already
 * decided (`decided`): a replay of the frame must not bring the buttons back.
 */
export function onPlanReady(
  turn: TurnView,
  frame: ServerFrameOf<"plan_ready_for_review">,
  decided?: PlanDecisionView,
): TurnView {
  return withPlan(turn, frame.tool_call_id, (current) => {
    const decision = decided ?? current?.decision;
    return {
      reviews: [],
      ...current,
      plan: frame.plan,
      draft: true,
      awaitingDecision: decision === undefined,
      ...(decision && { decision }),
    };
  });
}

/** plan_review: the reviewer's verdict, once per round (a replay repeats rounds, not adds them). */
export function onPlanReview(turn: TurnView, frame: ServerFrameOf<"plan_review">): TurnView {
  const current = turn.cards[frame.tool_call_id]?.plan;
  if (!current) return turn;
  const review = { verdict: frame.verdict, notes: frame.notes, round: frame.round };
  const reviews = [...current.reviews.filter((r) => r.round !== frame.round), review].sort(
    (a, b) => a.round - b.round,
  );
  return patchCard(turn, frame.tool_call_id, { plan: { ...current, reviews } });
}

/** progress_update: the send_update call shows as a progress line where it was made. */
export function onProgress(turn: TurnView, frame: ServerFrameOf<"progress_update">): TurnView {
  const card = ensureCard(turn, frame.tool_call_id, "send_update", frame.parent_id, frame.depth);
  return patchCard(card, frame.tool_call_id, { progress: frame.message });
}

/** The user decided on a draft: the buttons go at once (the server starts the run in a new turn). */
export function decidePlanCard(turn: TurnView, toolCallId: string, decision: PlanDecisionView): TurnView {
  const current = turn.cards[toolCallId]?.plan;
  if (!current) return turn;
  return patchCard(turn, toolCallId, {
    plan: { ...current, awaitingDecision: false, decision },
  });
}

/** The server refused our decision (busy, no longer pending...): the draft asks again. */
export function undecidePlanCard(turn: TurnView, toolCallId: string): TurnView {
  const current = turn.cards[toolCallId]?.plan;
  if (!current?.draft || current.decision === undefined) return turn;
  const { decision: _decision, ...rest } = current;
  return patchCard(turn, toolCallId, { plan: { ...rest, awaitingDecision: true } });
}

function withPlan(
  turn: TurnView,
  toolCallId: string,
  update: (current: PlanView | undefined) => PlanView,
): TurnView {
  const withCard = ensureCard(turn, toolCallId, "create_plan", null, 0);
  return patchCard(withCard, toolCallId, { plan: update(withCard.cards[toolCallId]?.plan) });
}

/**
 * The server sends a call's tool_call_update start before anything the call emits; a frame about a
 * call the page never saw start (a damaged stream) still gets a card to show in.
 */
function ensureCard(
  turn: TurnView,
  id: string,
  name: string,
  parentId: string | null,
  depth: number,
): TurnView {
  if (turn.cards[id]) return turn;
  const card: ToolCard = { id, name, parentId, depth, argsPreview: "", status: "running", children: [] };
  return upsertCard(turn, card);
}

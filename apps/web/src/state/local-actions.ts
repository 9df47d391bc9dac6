import { decidePlanCard, finishTurn, undecidePlanCard } from "@agentwire-chat/client";
import type { PlanDecisionView } from "./plan-view.js";
import { type ApprovalDecision, emptyTurn, lastTurn, type ThreadView, type TurnView } from "./thread-view.js";

/** What the user did, applied before the server confirms it, so the page reacts at once. */

/** The user sent a message: show it and a running turn until the server's frames arrive. */
export function startLocalTurn(view: ThreadView, requestId: string, text: string): ThreadView {
  const turn: TurnView = { ...emptyTurn(`r:${requestId}`), requestId, user: { text }, state: "thinking" };
  return { ...view, turns: [...view.turns, turn] };
}

/** The server refused our chat_message (bad_request, busy, ...): the turn never started. */
export function failRequest(view: ThreadView, requestId: string, message: string): ThreadView {
  return mapTurns(view, (t) =>
    t.requestId === requestId ? { ...finishTurn(t), errors: [...t.errors, message] } : t,
  );
}

export function answerQuestion(view: ThreadView, toolCallId: string, answer: string): ThreadView {
  return mapLast(view, (t) => ({
    ...t,
    questions: t.questions.map((q) => (q.toolCallId === toolCallId ? { ...q, answer, resolved: true } : q)),
  }));
}

export function decideApproval(view: ThreadView, approvalId: string, decision: ApprovalDecision): ThreadView {
  return mapLast(view, (t) => ({
    ...t,
    approvals: t.approvals.map((a) => (a.approvalId === approvalId ? { ...a, decision, resolved: true } : a)),
  }));
}

/** We sent a plan_decision: the draft's buttons go, in whichever turn its card is. */
export function decidePlan(view: ThreadView, toolCallId: string, decision: PlanDecisionView): ThreadView {
  const decided = mapTurns(view, (t) =>
    t.cards[toolCallId]?.plan ? decidePlanCard(t, toolCallId, decision) : t,
  );
  return { ...decided, planDecisions: { ...view.planDecisions, [toolCallId]: decision } };
}

/** Our plan_decision was refused: the draft's buttons come back, and a replay may show them again. */
export function undecidePlan(view: ThreadView, toolCallId: string): ThreadView {
  const undecided = mapTurns(view, (t) => (t.cards[toolCallId]?.plan ? undecidePlanCard(t, toolCallId) : t));
  const { [toolCallId]: _gone, ...planDecisions } = view.planDecisions ?? {};
  return { ...undecided, planDecisions };
}

/** We sent the tool_result of a client tool call; never run it again, even when a replay repeats it. */
export function markClientCallDone(view: ThreadView, toolCallId: string): ThreadView {
  return mapLast(view, (t) => {
    const call = t.clientCalls[toolCallId];
    return call ? { ...t, clientCalls: { ...t.clientCalls, [toolCallId]: { ...call, done: true } } } : t;
  });
}

function mapLast(view: ThreadView, update: (t: TurnView) => TurnView): ThreadView {
  const last = lastTurn(view);
  return last ? { ...view, turns: [...view.turns.slice(0, -1), update(last)] } : view;
}

function mapTurns(view: ThreadView, update: (t: TurnView) => TurnView): ThreadView {
  return { ...view, turns: view.turns.map(update) };
}

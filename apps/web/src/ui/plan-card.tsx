import { useState } from "preact/hooks";
import { type PlanView, planLayout, type StepView } from "../state/plan-view.js";
import type { ToolCard, TurnView } from "../state/thread-view.js";
import { ChildrenView } from "./children-view.js";
import { useController } from "./controller-context.js";
import { StatusIcon, ToolCardView } from "./tool-card.js";

/**
 * A create_plan call with its plan: the goal, the stages in order (parallel or in sequence) and a
 * card per step. A step whose subtask started is that subtask's card (status, nested calls,
 * result); one not started yet is a placeholder. A draft shows Approve and Revise.
 */
export function PlanCard({ card, turn, plan }: { card: ToolCard; turn: TurnView; plan: PlanView }) {
  const { stages, rest } = planLayout(card, turn);
  return (
    <section
      class={`plan card card-${card.status}`}
      data-card-id={card.id}
      data-plan-id={plan.plan.id}
      data-depth={card.depth}
      data-status={card.status}
      aria-label={`Plan: ${plan.plan.goal}`}
    >
      <div class="plan-head">
        <StatusIcon status={card.status} />
        <span class="card-name">Plan</span>
        <span class="plan-goal">{plan.plan.goal}</span>
      </div>
      <ol class="plan-stages">
        {stages.map(({ stage, steps }) => (
          <li key={stage.id} class="plan-stage" data-stage-id={stage.id} data-mode={stage.mode}>
            <div class="plan-stage-head">
              <span class="plan-stage-name">{stage.name}</span>{" "}
              <span class="badge">{stage.mode === "parallel" ? "in parallel" : "in sequence"}</span>
            </div>
            <ul class={`plan-steps plan-steps-${stage.mode}`}>
              {steps.map((s) => (
                <StepCard key={s.step.id} step={s} turn={turn} waiting={waitingLabel(card, plan)} />
              ))}
            </ul>
          </li>
        ))}
      </ol>
      <ChildrenView children={rest} turn={turn} />
      {plan.reviews.map((r) => (
        <p key={r.round} class={`plan-review plan-review-${r.verdict}`} data-verdict={r.verdict}>
          <strong>
            Review{plan.reviews.length > 1 ? ` ${r.round}` : ""}:{" "}
            {r.verdict === "approve" ? "approved" : "rejected"}
          </strong>
          {r.notes && <span class="plan-review-notes"> — {r.notes}</span>}
        </p>
      ))}
      <PlanDecision card={card} plan={plan} />
      {card.status === "error" && card.resultPreview && (
        <p class="card-line card-result-error">
          <span class="card-label">error</span> <code>{card.resultPreview}</code>
        </p>
      )}
    </section>
  );
}

/**
 * What a step that has no subtask yet is: part of a draft (it runs, if approved, in a following
 * turn), waiting for its turn in a running plan, or never run (a failed input, Stop).
 */
function waitingLabel(card: ToolCard, plan: PlanView): "planned" | "not started" | "not run" {
  if (plan.draft) return "planned";
  return card.status === "running" ? "not started" : "not run";
}

/** A step: its subtask's card once it started; before that a placeholder saying why not. */
function StepCard({ step, turn, waiting }: { step: StepView; turn: TurnView; waiting: string }) {
  const status = step.card?.status ?? waiting.replace(" ", "_");
  return (
    <li class="plan-step" data-step-id={step.step.id} data-status={status}>
      {step.card ? (
        <ToolCardView card={step.card} turn={turn} />
      ) : (
        <div class="card card-pending">
          <div class="card-head">
            <span class="status-icon pending" role="img" aria-label={waiting}>
              ○
            </span>
            <span class="card-name">{step.step.title}</span>
            <span class="card-kind">{waiting}</span>
          </div>
        </div>
      )}
    </li>
  );
}

/** Approve or Revise (with feedback) while the draft waits; then what was decided. */
function PlanDecision({ card, plan }: { card: ToolCard; plan: PlanView }) {
  const controller = useController();
  const [revising, setRevising] = useState(false);
  const [feedback, setFeedback] = useState("");
  if (plan.decision) {
    return (
      <p class="plan-decided muted">
        {plan.decision.decision === "approve"
          ? "You approved this plan."
          : `You asked for changes${plan.decision.feedback ? `: ${plan.decision.feedback}` : "."}`}
      </p>
    );
  }
  if (!plan.awaitingDecision) return null;
  const decide = (decision: "approve" | "revise") =>
    controller.decidePlan(card.id, plan.plan.id, {
      decision,
      ...(decision === "revise" && { feedback: feedback.trim() }),
    });
  const inputId = `plan-feedback-${card.id}`;
  return (
    <div class="plan-actions">
      <p class="plan-waiting">This plan waits for your review.</p>
      {revising ? (
        <form
          class="plan-feedback"
          onSubmit={(e) => {
            e.preventDefault();
            if (feedback.trim()) decide("revise");
          }}
        >
          <label for={inputId}>What should change?</label>
          <textarea
            id={inputId}
            rows={2}
            value={feedback}
            onInput={(e) => setFeedback(e.currentTarget.value)}
          />
          <div class="row">
            <button type="submit" disabled={!feedback.trim()}>
              Send feedback
            </button>
            <button type="button" onClick={() => setRevising(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div class="row">
          <button type="button" class="primary" onClick={() => decide("approve")}>
            Approve
          </button>
          <button type="button" onClick={() => setRevising(true)}>
            Revise
          </button>
        </div>
      )}
    </div>
  );
}

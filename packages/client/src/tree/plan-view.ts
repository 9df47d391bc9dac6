import type { Plan, PlanExecutionMode } from "@agentwire-chat/protocol";

export type PlanReviewView = { verdict: "approve" | "reject"; notes: string; round: number };
export type PlanDecisionView = { decision: "approve" | "revise"; feedback?: string };

/** A create_plan call's plan as the page shows it: the plan, its reviews, and the user's decision on a draft. */
export type PlanView = {
  plan: Plan;
  mode?: PlanExecutionMode;
  /** A draft for the user to review: its steps run (if ever) in a following turn, not under this card. */
  draft?: boolean;
  /** A draft waiting for the user's plan_decision: Approve and Revise show. */
  awaitingDecision: boolean;
  /** What this page sent; the buttons go once there is one. */
  decision?: PlanDecisionView;
  reviews: PlanReviewView[];
};

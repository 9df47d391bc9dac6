import type { Plan, PlanExecutionMode, PlanStatus } from "@agentwire-chat/protocol";

/** What create_plan records about its plans; the server backs it with its `plans` table. */
export interface PlanStore {
  /** Stores a new plan made by the create_plan call `toolCallId`. */
  save(plan: Plan, meta: { toolCallId: string; mode: PlanExecutionMode; status: PlanStatus }): Promise<void>;
  /** Moves a stored plan to `status`. */
  setStatus(planId: string, status: PlanStatus): Promise<void>;
  /**
   * Claims a draft of this conversation that waits for review, to run it now (pending_review →
   * approved, once: a racing decision loses); undefined when there is no such draft.
   */
  takeDraft?(planId: string): Promise<Plan | undefined>;
}

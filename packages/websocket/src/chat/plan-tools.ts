import {
  createPlanTool,
  type LoopEvent,
  type LoopResult,
  type PlanStore,
  type RunLoopParams,
  runAgentLoop,
  runApprovedPlan,
  type Tool,
} from "@agentwire-chat/agents";
import type { ChatContext, Plan } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import type { ConversationToolsInput } from "./conversation-tools.js";

/** The turn's plans, in the `plans` table of the user's thread. */
export function repoPlanStore(
  repos: Repositories,
  userId: string,
  threadId: string,
  chatContext: ChatContext,
): PlanStore {
  return {
    async save(plan, meta) {
      await repos.plans.create(userId, {
        id: plan.id,
        threadId,
        toolCallId: meta.toolCallId,
        executionMode: meta.mode,
        plan,
        chatContext,
        status: meta.status,
      });
    },
    async setStatus(planId, status) {
      await repos.plans.setStatus(userId, planId, status);
    },
    async takeDraft(planId) {
      const row = await repos.plans.get(userId, planId);
      if (!row || row.threadId !== threadId || row.status !== "pending_review") return undefined;
      // Conditional, like plan_decision: of a typed approval and a pressed one, one wins.
      return (await repos.plans.transition(userId, planId, "pending_review", "approved"))
        ? row.plan
        : undefined;
    },
  };
}

/** create_plan for one turn: the scope's default mode, plans stored on the thread. */
export function planTool({ scope, repos }: ConversationToolsInput): Tool {
  return createPlanTool({
    ...(scope.planMode !== undefined && { defaultMode: scope.planMode }),
    store: repoPlanStore(repos, scope.userId, scope.threadId, scope.chatContext),
  }) as Tool;
}

/** The plan a `plan_decision` approved, for the turn that runs it. */
export type ApprovedPlan = { plan: Plan; store: PlanStore };

/** How a chat turn's root loop starts: plainly, or by running an approved plan first. */
export function rootLoop(
  approved: ApprovedPlan | undefined,
): (params: RunLoopParams) => AsyncGenerator<LoopEvent, LoopResult> {
  if (!approved) {
    return ({ model, systemPrompt, history, ...common }) =>
      runAgentLoop({ ...common, from: { kind: "start", model, systemPrompt, history } });
  }
  return (params) => runApprovedPlan({ ...params, plan: approved.plan, store: approved.store });
}

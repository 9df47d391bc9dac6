import { randomUUID } from "node:crypto";
import { type Plan, PlanExecutionMode } from "@agentwire-chat/protocol";
import { z } from "zod";
import { defineTool, ok, toolError } from "../tools/define-tool.js";
import type { Tool, ToolContext, ToolOutcome } from "../tools/tool.js";
import type { LoopEvent } from "../turn/loop-event.js";
import { type CallModel, draftPlan } from "./draft-plan.js";
import { executePlan } from "./execute-plan.js";
import { plannerUserPrompt, revisePlanPrompt } from "./plan-prompt.js";
import type { PlanStore } from "./plan-store.js";
import { planSuspension, resumedPlan } from "./plan-suspension.js";
import { reviewPlan } from "./review-plan.js";
import type { StepOutcome } from "./run-plan.js";

export const CREATE_PLAN = "create_plan";

export const CreatePlanArgs = z.object({
  objective: z
    .string()
    .trim()
    .min(1)
    .max(8000)
    .optional()
    .describe("What the plan must achieve, in plain words. Required unless plan_id is given."),
  plan_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "Run the draft plan with this id that waits for the user's review, when the user approves it in a " +
        "message (e.g. 'go ahead'); no objective then. To change the draft, call create_plan with a new objective instead.",
    ),
  execution_mode: PlanExecutionMode.optional().describe(
    "auto_execute: run it now; draft_only: show it to the user, who approves or revises it; " +
      "agent_review: a reviewer checks it first. Default: the conversation's setting.",
  ),
  requested_outputs: z
    .union([z.string().min(1).max(2000), z.array(z.string().min(1).max(2000)).max(20)])
    .optional()
    .describe("What the plan's results must include."),
});
export type CreatePlanArgs = z.infer<typeof CreatePlanArgs>;

export type CreatePlanToolOptions = {
  /** The mode when the call names none (the context scope's setting); default auto_execute. */
  defaultMode?: PlanExecutionMode;
  /** Where plans are recorded; draft_only needs it (the user's decision finds the draft there). */
  store?: PlanStore;
  /** Repair rounds after an invalid planner answer; default 1. */
  maxRepairs?: number;
  /** Reviewer calls per create_plan in agent_review mode; default 2. */
  maxReviewRounds?: number;
  newId?: () => string;
};

/** A tool context inside the loop: the services a plan needs are there. */
export type Running = Required<Pick<ToolContext, "callModel" | "runSubtask">> & ToolContext;

/**
 * `create_plan {objective, execution_mode?, requested_outputs?}`: a planner call drafts a staged plan
 * (validated, one repair), then it runs as nested subtasks, waits for the user, or goes to a reviewer
 * first. Planner and reviewer calls and the steps count in the turn: the loop lends them (ToolContext).
 * A step that asks the user suspends the call; `resume` runs the rest of the plan after the answer.
 */
export function createPlanTool(opts: CreatePlanToolOptions = {}): Tool<CreatePlanArgs> {
  const newId = opts.newId ?? randomUUID;
  const tool = defineTool({
    name: CREATE_PLAN,
    description:
      "Plan a larger job as stages of steps that sub-agents carry out (steps of a stage can run in parallel), " +
      "then run it, or let the user or a reviewer approve it first. Use it for work with several distinct parts; " +
      "answer simple requests directly.",
    args: CreatePlanArgs,
    permissionClass: "subagent",
    // A plan already runs its steps in parallel; two plans at once would interleave their stages.
    parallelSafe: false,
    async execute(args, ctx): Promise<ToolOutcome> {
      if (!ctx.callModel || !ctx.runSubtask) {
        return toolError("create_plan can only run inside the agent loop");
      }
      if (args.plan_id !== undefined) return runDraft(args.plan_id, ctx as Running, opts.store);
      if (args.objective === undefined)
        return toolError("create_plan: give an objective, or the plan_id of a draft to run");
      return createPlan({ ...args, objective: args.objective }, ctx as Running, opts, newId());
    },
  });
  return {
    ...tool,
    async resume(state, resumed, ctx): Promise<ToolOutcome> {
      if (!ctx.runSubtask) {
        return toolError("create_plan can only run inside the agent loop");
      }
      const saved = resumedPlan(state, resumed);
      if (!saved.ok) return toolError(`create_plan: ${saved.error}`);
      return runToEnd(saved.plan, ctx as Running, opts.store, saved.defaultTools, saved.finished);
    },
  };
}

/**
 * `create_plan {plan_id}`: runs a stored draft the user approved in a message, the way a
 * `plan_decision` approve does (the store claims it from pending_review first, so it runs once).
 */
async function runDraft(planId: string, ctx: Running, store: PlanStore | undefined): Promise<ToolOutcome> {
  let plan: Plan | undefined;
  try {
    plan = await store?.takeDraft?.(planId);
  } catch (error) {
    return toolError(`create_plan: could not read the draft: ${messageOf(error)}`);
  }
  if (!plan) return toolError(`create_plan: no draft plan "${planId}" waits for review in this conversation`);
  ctx.emit?.({ type: "plan_created", tool_call_id: ctx.toolCallId, execution_mode: "draft_only", plan });
  const toolNames = (ctx.toolNames ?? []).filter((n) => n !== CREATE_PLAN);
  return runToEnd(plan, ctx, store, toolNames, []);
}

async function createPlan(
  args: CreatePlanArgs & { objective: string },
  ctx: Running,
  opts: CreatePlanToolOptions,
  planId: string,
): Promise<ToolOutcome> {
  const mode = args.execution_mode ?? opts.defaultMode ?? "auto_execute";
  const emit = ctx.emit ?? ((_: LoopEvent) => {});
  const toolNames = (ctx.toolNames ?? []).filter((n) => n !== CREATE_PLAN);
  const outputs = args.requested_outputs === undefined ? [] : [args.requested_outputs].flat();
  const callModel: CallModel = ctx.callModel;
  const maxRepairs = opts.maxRepairs ?? 1;
  let draft = await draftPlan(callModel, {
    planId,
    toolNames,
    conversation: [{ role: "user", content: plannerUserPrompt(args.objective, outputs) }],
    maxRepairs,
  });
  if (!draft.ok) return toolError(`create_plan: ${draft.error}`);
  const created = (plan: Plan) =>
    emit({ type: "plan_created", tool_call_id: ctx.toolCallId, execution_mode: mode, plan });
  created(draft.plan);

  if (mode === "draft_only") {
    if (!opts.store)
      return toolError("create_plan: draft_only is not available here (plans cannot be stored)");
    try {
      await opts.store.save(draft.plan, { toolCallId: ctx.toolCallId, mode, status: "pending_review" });
    } catch (error) {
      return toolError(`create_plan: could not store the plan: ${messageOf(error)}`);
    }
    emit({ type: "plan_ready_for_review", tool_call_id: ctx.toolCallId, plan: draft.plan });
    return ok({
      status: "awaiting_user_review",
      plan_id: planId,
      plan: draft.plan,
      note: `The user now reviews this plan: it runs only when they approve it, and their feedback comes as a new message. Do not carry it out yourself; tell the user it is ready for their review. If they approve it in a message, run it with create_plan {plan_id: "${planId}"}.`,
    });
  }

  if (mode === "agent_review") {
    const rounds = opts.maxReviewRounds ?? 2;
    for (let round = 1; ; round++) {
      const review = await reviewPlan(callModel, args.objective, draft.plan);
      if (!review.ok) return toolError(`create_plan: ${review.error}`);
      const { verdict, notes } = review.verdict;
      emit({ type: "plan_review", tool_call_id: ctx.toolCallId, plan_id: planId, verdict, notes, round });
      if (verdict === "approve") break;
      if (round >= rounds) {
        return {
          type: "result",
          isError: true,
          output: {
            status: "rejected",
            plan_id: planId,
            plan: draft.plan,
            notes,
            note: `The reviewer rejected the plan ${round} time(s); it did not run. Change the approach or do the work another way.`,
          },
        };
      }
      const conversation = [
        ...draft.conversation,
        { role: "user" as const, content: revisePlanPrompt(notes) },
      ];
      draft = await draftPlan(callModel, { planId, toolNames, conversation, maxRepairs });
      if (!draft.ok) return toolError(`create_plan: ${draft.error}`);
      created(draft.plan);
    }
  }

  try {
    await opts.store?.save(draft.plan, { toolCallId: ctx.toolCallId, mode, status: "approved" });
  } catch {
    // Recording an auto-run plan is for listing only: the run goes on without it.
  }
  return runToEnd(draft.plan, ctx, opts.store, toolNames, []);
}

/** Runs the plan's remaining steps: its summary for the model, or a suspension when a step asks. */
export async function runToEnd(
  plan: Plan,
  ctx: Running,
  store: PlanStore | undefined,
  defaultTools: readonly string[],
  finished: readonly StepOutcome[],
): Promise<ToolOutcome> {
  const services = {
    runSubtask: ctx.runSubtask,
    signal: ctx.signal,
    defaultTools,
    callId: ctx.toolCallId,
  };
  const run = await executePlan(plan, services, store, finished);
  return run.status === "waiting" ? planSuspension(plan, run, defaultTools) : ok(run);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

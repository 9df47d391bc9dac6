import type { Plan } from "@agentwire-chat/protocol";
import type { ModelMessage } from "../providers/model-message.js";
import type { ModelCallRequest, ModelCallResult } from "../tools/tool.js";
import { extractGraphJson } from "../workflows/extract-graph-json.js";
import { plannerSystemPrompt, repairPlanPrompt } from "./plan-prompt.js";
import { validatePlan } from "./validate-plan.js";

export type CallModel = (request: ModelCallRequest) => Promise<ModelCallResult>;

/** A valid plan with the planner conversation that led to it (a revision goes on from there), or why none. */
export type PlanDraft = { ok: true; plan: Plan; conversation: ModelMessage[] } | { ok: false; error: string };

export type DraftPlanInput = {
  planId: string;
  toolNames: readonly string[];
  /** The planner conversation so far, ending with a user message. */
  conversation: readonly ModelMessage[];
  /** Repair rounds after an invalid answer. */
  maxRepairs: number;
};

/** Asks the planner for a plan and validates it, feeding the problems back at most `maxRepairs` times. */
export async function draftPlan(callModel: CallModel, input: DraftPlanInput): Promise<PlanDraft> {
  const systemPrompt = plannerSystemPrompt(input.toolNames);
  const conversation = input.conversation.slice();
  let issues: string[] = [];
  for (let attempt = 0; attempt <= input.maxRepairs; attempt++) {
    const answer = await callModel({ systemPrompt, messages: conversation.slice(), operation: "planner" });
    if (!answer.ok) return { ok: false, error: `the planner call failed: ${answer.error}` };
    conversation.push({ role: "assistant", text: answer.text });
    const json = extractGraphJson(answer.text);
    const check = json.ok
      ? validatePlan(json.value, { id: input.planId, toolNames: input.toolNames })
      : { ok: false as const, issues: [json.error] };
    if (check.ok) return { ok: true, plan: check.plan, conversation };
    issues = check.issues;
    conversation.push({ role: "user", content: repairPlanPrompt(issues) });
  }
  return { ok: false, error: `the planner's plan is not valid: ${issues.join("; ")}` };
}

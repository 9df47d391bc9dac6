import type { Plan } from "@agentwire-chat/protocol";
import { z } from "zod";
import type { ModelMessage } from "../providers/model-message.js";
import { extractGraphJson } from "../workflows/extract-graph-json.js";
import type { CallModel } from "./draft-plan.js";
import { REVIEWER_SYSTEM_PROMPT, repairReviewPrompt, reviewerUserPrompt } from "./plan-prompt.js";

/** The reviewer's judgement of a plan. */
export const PlanVerdict = z.object({
  verdict: z.enum(["approve", "reject"]),
  notes: z.string().max(20_000).default(""),
});
export type PlanVerdict = z.infer<typeof PlanVerdict>;

/** The verdict, or why none could be had. */
export type PlanReviewOutcome = { ok: true; verdict: PlanVerdict } | { ok: false; error: string };

/** One reviewer call on the plan (and one more when its answer cannot be read). */
export async function reviewPlan(
  callModel: CallModel,
  objective: string,
  plan: Plan,
): Promise<PlanReviewOutcome> {
  const messages: ModelMessage[] = [{ role: "user", content: reviewerUserPrompt(objective, plan) }];
  let error = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await callModel({
      systemPrompt: REVIEWER_SYSTEM_PROMPT,
      messages: messages.slice(),
      operation: "plan_review",
    });
    if (!answer.ok) return { ok: false, error: `the reviewer call failed: ${answer.error}` };
    const json = extractGraphJson(answer.text);
    const parsed = json.ok ? PlanVerdict.safeParse(json.value) : undefined;
    if (parsed?.success) return { ok: true, verdict: parsed.data };
    error = json.ok ? "expected {verdict: approve|reject, notes}" : json.error;
    messages.push(
      { role: "assistant", text: answer.text },
      { role: "user", content: repairReviewPrompt(error) },
    );
  }
  return { ok: false, error: `the reviewer's answer could not be read: ${error}` };
}

import type { Plan } from "@agentwire-chat/protocol";

/** The planner's instructions: one staged plan as JSON, built from the caller's tools. */
export function plannerSystemPrompt(toolNames: readonly string[]): string {
  const tools = toolNames.length > 0 ? toolNames.join(", ") : "(none)";
  return [
    "You are a planner. Break the objective into a staged plan that sub-agents will carry out.",
    "Answer with one JSON object only, in a ```json fence, of this shape:",
    '{"goal": string, "stages": [{"id": string, "name": string, "mode": "parallel" | "sequence", ' +
      '"steps": [{"id": string, "title": string, "instructions": string, "tools"?: string[], "inputs"?: string[]}]}]}',
    "Rules:",
    '- Stages run in order. The steps of a "parallel" stage run at the same time; those of a "sequence" stage one after another.',
    "- Each step is done by a separate sub-agent that sees only its instructions and the results of the steps named in its " +
      '"inputs": make the instructions self-contained.',
    '- Step ids are unique in the whole plan. "inputs" names steps of earlier stages, or steps listed before it in the same stage.',
    `- "tools", when given, names only tools from this list: ${tools}. Leave it out to give the step all of them.`,
    "- Use as few stages and steps as the objective needs.",
  ].join("\n");
}

/** The planner's first message. */
export function plannerUserPrompt(objective: string, requestedOutputs: readonly string[]): string {
  const lines = [`Objective: ${objective}`];
  if (requestedOutputs.length > 0) {
    lines.push("The plan's results must include:", ...requestedOutputs.map((o) => `- ${o}`));
  }
  return lines.join("\n");
}

/** Feeds validation errors back to the planner. */
export function repairPlanPrompt(issues: readonly string[]): string {
  return [
    "That plan is not valid:",
    ...issues.map((i) => `- ${i}`),
    "Answer again with the whole corrected plan as one JSON object.",
  ].join("\n");
}

/** Asks the planner for a better plan after the reviewer rejected one. */
export function revisePlanPrompt(notes: string): string {
  return `A reviewer rejected the plan:\n${notes}\nAnswer with an improved plan as one JSON object.`;
}

/** The reviewer's instructions: a verdict as JSON. */
export const REVIEWER_SYSTEM_PROMPT = [
  "You review plans that sub-agents will carry out. Judge whether the plan reaches the objective with sensible,",
  "self-contained steps, in a sensible order, without needless work.",
  'Answer with one JSON object only: {"verdict": "approve" | "reject", "notes": string}.',
  "When you reject, say in the notes exactly what to change.",
].join("\n");

/** The reviewer's message: the objective and the plan. */
export function reviewerUserPrompt(objective: string, plan: Plan): string {
  return `Objective: ${objective}\n\nPlan:\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\``;
}

/** Asks the reviewer again when its answer could not be read. */
export function repairReviewPrompt(error: string): string {
  return `Your answer could not be read (${error}). Answer with one JSON object: {"verdict": "approve" | "reject", "notes": string}.`;
}

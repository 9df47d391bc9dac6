import type { Plan } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { terminalText } from "./terminal-text.js";

const TITLE_CHARS = 100;

/**
 * A plan as its goal and numbered stages and steps (`    1.2 Find quotes (after 1.1)`), inputs by
 * their numbers: the shape of the work without the steps' instructions.
 */
export function planLines(plan: Plan): string[] {
  const numbers = new Map<string, string>();
  plan.stages.forEach((stage, i) => {
    stage.steps.forEach((step, j) => {
      numbers.set(step.id, `${i + 1}.${j + 1}`);
    });
  });
  const text = (s: string) => terminalText(preview(s, TITLE_CHARS));
  const lines = [`  goal: ${text(plan.goal)}`];
  plan.stages.forEach((stage, i) => {
    lines.push(`  ${i + 1}. ${text(stage.name)} (${stage.mode === "parallel" ? "in parallel" : "in order"})`);
    for (const step of stage.steps) {
      const after = (step.inputs ?? []).map((id) => numbers.get(id) ?? terminalText(id));
      const inputs = after.length > 0 ? ` (after ${after.join(", ")})` : "";
      lines.push(`    ${numbers.get(step.id)} ${text(step.title)}${inputs}`);
    }
  });
  return lines;
}

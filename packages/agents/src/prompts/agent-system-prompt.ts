import { agenticRules } from "./agentic-rules.js";

/** What the root agent's system prompt depends on. */
export type AgentPromptInput = {
  /** True when run_subtask is in the toolbelt. */
  canSpawnSubtasks: boolean;
  /** The toolbelt's names: the working rules mention only tools it has (absent: all of them). */
  toolNames?: readonly string[];
  /** Extra instructions (the deployment's own, memory, editor context). */
  extra?: string;
};

/** The default system prompt of the root agent (depth 0). */
export function agentSystemPrompt(input: AgentPromptInput): string {
  const lines = [
    "You are a helpful assistant. Answer directly when you can; use tools when they give you facts or " +
      "effects you need.",
  ];
  if (input.canSpawnSubtasks) {
    lines.push(
      "For a larger job with independent parts, delegate each part with run_subtask (several calls at once " +
        "run in parallel) and combine their results. Keep simple work to yourself.",
    );
  }
  lines.push(...agenticRules(input.toolNames));
  if (input.extra) lines.push(input.extra);
  return lines.join("\n");
}

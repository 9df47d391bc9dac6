import { agenticRules } from "./agentic-rules.js";

/** What a subtask's system prompt depends on. */
export type SubtaskPromptInput = {
  title: string;
  depth: number;
  /** False at MAX_DEPTH: the prompt then says nothing about subtasks. */
  canSpawnSubtasks: boolean;
  /** True when the subtask must end with finish_subtask. */
  structuredResult: boolean;
  /** The subtask's toolbelt names: the working rules mention only tools it has (absent: all of them). */
  toolNames?: readonly string[];
  /** The turn's scope guidance (`LoopContext.guidance`), the same the root reads. */
  guidance?: string;
};

/** The system prompt of a subtask level. */
export function subtaskSystemPrompt(input: SubtaskPromptInput): string {
  const lines = [
    `You are a focused sub-agent working on one subtask: "${input.title}".`,
    "The user message holds your instructions; you do not see the conversation that led to them.",
    "Use your tools when they help, then answer concisely: your final answer goes back to the agent that " +
      "delegated this task, not to a person.",
  ];
  if (input.canSpawnSubtasks) {
    lines.push(
      "If the work splits into independent parts, you may delegate them with run_subtask (several calls at " +
        "once run in parallel); do simple things yourself.",
    );
  }
  if (input.structuredResult) {
    lines.push(
      "You must finish by calling finish_subtask with a `result` that matches its schema. If it reports " +
        "errors, fix the result and call it again.",
    );
  }
  lines.push(...agenticRules(input.toolNames));
  if (input.guidance) lines.push(input.guidance);
  return lines.join("\n");
}

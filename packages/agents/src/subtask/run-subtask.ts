import type { CallOutcome } from "../loop/call-outcome.js";
import { errorOutcome, stoppedOutcome } from "../loop/call-outcome.js";
import type { Level } from "../loop/level.js";
import type { LoopEvent } from "../loop/loop-event.js";
import { runUnifiedAgentLoop } from "../loop/run-unified-agent-loop.js";
import { subtaskSystemPrompt } from "../prompts/subtask-system-prompt.js";
import type { Tool } from "../tools/tool.js";
import { compileOutputSchema } from "./compile-output-schema.js";
import { RUN_SUBTASK, type RunSubtaskArgs } from "./run-subtask-tool.js";
import { subtaskOutcome } from "./subtask-outcome.js";

/** Runs a child level for a run_subtask call, forwarding its events; its usage joins the parent's. */
export async function runSubtask(
  level: Level,
  callId: string,
  args: RunSubtaskArgs,
  push: (event: LoopEvent) => void,
): Promise<CallOutcome> {
  const tools = narrowToolbelt(level.inheritable, args.tools);
  if (typeof tools === "string") return errorOutcome(tools);
  if (args.output_schema) {
    const compiled = compileOutputSchema(args.output_schema);
    if (!compiled.ok) return errorOutcome(`output_schema is not a valid JSON Schema: ${compiled.message}`);
  }
  if (level.budget.tryStart("subtasks")) return stoppedOutcome(true);
  level.usage.addSubtask();
  const depth = level.depth + 1;
  const child = runUnifiedAgentLoop({
    provider: level.params.provider,
    model: level.params.model,
    systemPrompt: subtaskSystemPrompt({
      title: args.title,
      depth,
      canSpawnSubtasks: depth < level.budget.limits.MAX_DEPTH && tools.some((t) => t.name === RUN_SUBTASK),
      structuredResult: args.output_schema !== undefined,
    }),
    history: [{ role: "user", content: args.instructions }],
    tools,
    ctx: level.ctx,
    depth,
    parentId: callId,
    signal: level.signal,
    title: args.title,
    ...(args.output_schema !== undefined && { outputSchema: args.output_schema }),
    ...(level.params.maxTokens !== undefined && { maxTokens: level.params.maxTokens }),
  });
  for (;;) {
    const next = await child.next();
    if (next.done) {
      level.usage.merge(next.value.usage);
      return subtaskOutcome(next.value, args.title);
    }
    push(next.value);
  }
}

/** The parent's toolbelt, narrowed to `names`; a name outside it is an error, never a widening. */
export function narrowToolbelt(belt: readonly Tool[], names: readonly string[] | undefined): Tool[] | string {
  if (names === undefined) return belt.slice();
  const wanted = new Set(names);
  const unknown = names.filter((n) => !belt.some((t) => t.name === n));
  if (unknown.length > 0) {
    return `run_subtask: these tools are not available to you, so not to the subtask either: ${unknown.join(", ")}`;
  }
  return belt.filter((t) => wanted.has(t.name));
}

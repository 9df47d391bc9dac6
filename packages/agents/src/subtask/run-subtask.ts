import type { CallOutcome } from "../loop/call-outcome.js";
import { errorOutcome, stoppedOutcome } from "../loop/call-outcome.js";
import type { Level } from "../loop/level.js";
import type { LoopEvent } from "../loop/loop-event.js";
import { runUnifiedAgentLoop } from "../loop/run-unified-agent-loop.js";
import { truncateResult } from "../loop/truncate-result.js";
import { subtaskSystemPrompt } from "../prompts/subtask-system-prompt.js";
import type { SuspendedState } from "../suspend/suspended-state.js";
import type { NestedSubtask, NestedSubtaskResult, Tool } from "../tools/tool.js";
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
  return runChildLevel(level, { ...args, tools, parentId: callId, depth: level.depth + 1 }, push);
}

type ChildLevel = Pick<RunSubtaskArgs, "title" | "instructions" | "output_schema"> & {
  tools: Tool[];
  parentId: string;
  depth: number;
};

/** Runs one child level to its end, forwarding its events; its usage joins the parent's. */
async function runChildLevel(
  level: Level,
  args: ChildLevel,
  push: (event: LoopEvent) => void,
): Promise<CallOutcome> {
  const { tools, depth } = args;
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
    parentId: args.parentId,
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

/**
 * Runs a tool's nested subtask (a plan step) under the tool's call `callId`: a node of its own at
 * depth + 1 with `start`/`end`, the subtask's level at depth + 2 under that node. Counted as a
 * subtask of the tree-wide budget. A suspension cannot be resumed inside a tool, so a step that asks
 * the user ends with an error naming the question, and its waiting calls are closed.
 */
export async function runNestedSubtask(
  level: Level,
  callId: string,
  task: NestedSubtask,
  push: (event: LoopEvent) => void,
): Promise<NestedSubtaskResult> {
  const node = { parent_id: callId, depth: level.depth + 1 };
  const startedAt = level.now();
  push({
    type: "tool_call_update",
    tool_call_id: task.id,
    name: task.name,
    status: "start",
    title: task.title,
    ...(task.args !== undefined && { args: task.args }),
    ...node,
  });
  const outcome = await nestedOutcome(level, task, push);
  const cut = truncateResult(outcome.content, level.budget.limits.MAX_TOOL_RESULT_BYTES);
  const isError = outcome.type === "result" && outcome.isError;
  push({
    type: "tool_call_update",
    tool_call_id: task.id,
    name: task.name,
    status: "end",
    result: cut.text,
    is_error: isError,
    duration_ms: Math.max(0, Math.round((level.now() - startedAt) * 1000) / 1000),
    ...node,
  });
  return { ok: !isError, text: cut.text };
}

async function nestedOutcome(
  level: Level,
  task: NestedSubtask,
  push: (event: LoopEvent) => void,
): Promise<Exclude<CallOutcome, { type: "suspend" }>> {
  const depth = level.depth + 2;
  if (depth > level.budget.limits.MAX_DEPTH) {
    return errorOutcome(
      `not run: a step here would be deeper than MAX_DEPTH (${level.budget.limits.MAX_DEPTH})`,
    );
  }
  const tools = narrowToolbelt(level.inheritable, task.tools);
  if (typeof tools === "string") return errorOutcome(tools);
  if (level.signal.aborted) return stoppedOutcome(level.budget.breach !== null);
  if (level.budget.tryStart("subtasks")) return stoppedOutcome(true);
  level.usage.addSubtask();
  const args = { title: task.title, instructions: task.instructions, tools, parentId: task.id, depth };
  const outcome = await runChildLevel(level, args, push);
  if (outcome.type !== "suspend") return outcome;
  closeWaitingCalls(outcome.nested, push);
  const s = outcome.suspension;
  const asked =
    s.kind === "question"
      ? `asked the user: ${JSON.stringify(s.question)}`
      : `needed the user's approval to run ${s.toolName}`;
  return errorOutcome(
    `step "${task.title}" stopped: it ${asked}, and a plan step cannot wait for the user; ask the user yourself, then run the work again`,
  );
}

/** Ends the calls a suspended nested subtree left open (deepest first), so its nodes close. */
function closeWaitingCalls(state: SuspendedState | null, push: (event: LoopEvent) => void): void {
  for (const waiting of [...(state?.levels ?? [])].reverse()) {
    push({
      type: "tool_call_update",
      tool_call_id: waiting.pendingCall.id,
      name: waiting.pendingCall.name,
      status: "end",
      result: NOT_ANSWERED,
      is_error: true,
      parent_id: waiting.parentId,
      depth: waiting.depth,
    });
  }
}

const NOT_ANSWERED = "not answered: a plan step cannot wait for the user";

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

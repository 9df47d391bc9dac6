import type { LlmOperation } from "@agentwire-chat/protocol";
import { subtaskSystemPrompt } from "../prompts/subtask-system-prompt.js";
import type { NestedSubtask, NestedSubtaskResult, Tool } from "../tools/tool.js";
import { truncateResult } from "../tools/truncate-result.js";
import { waitingCalls } from "../turn/ask-deferred.js";
import type { CallOutcome } from "../turn/call-outcome.js";
import { errorOutcome, stoppedOutcome } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { SuspendedState } from "../turn/suspended-state.js";
import { compileOutputSchema } from "./compile-output-schema.js";
import { RUN_SUBTASK, type RunSubtaskArgs } from "./run-subtask-tool.js";
import { subtaskOutcome } from "./subtask-outcome.js";
import type { SubtaskParent } from "./subtask-parent.js";

/** Runs a child level for a run_subtask call, forwarding its events; its usage joins the parent's. */
export async function runSubtask(
  level: SubtaskParent,
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

type ChildTask = Pick<RunSubtaskArgs, "title" | "instructions" | "output_schema"> & {
  tools: Tool[];
  parentId: string;
  depth: number;
  operation?: LlmOperation;
};

/** Runs one child level to its end, forwarding its events; its usage joins the parent's. */
async function runChildLevel(
  level: SubtaskParent,
  args: ChildTask,
  push: (event: LoopEvent) => void,
): Promise<CallOutcome> {
  const { tools, depth } = args;
  const child = level.runChild({
    systemPrompt: subtaskSystemPrompt({
      title: args.title,
      depth,
      canSpawnSubtasks: depth < level.budget.limits.MAX_DEPTH && tools.some((t) => t.name === RUN_SUBTASK),
      structuredResult: args.output_schema !== undefined,
      toolNames: tools.map((t) => t.name),
      ...(level.ctx.guidance !== undefined && { guidance: level.ctx.guidance }),
    }),
    history: [{ role: "user", content: args.instructions }],
    tools,
    depth,
    parentId: args.parentId,
    title: args.title,
    ...(args.output_schema !== undefined && { outputSchema: args.output_schema }),
    ...(args.operation !== undefined && { operation: args.operation }),
    // The child's earlier events are pushed before it runs on, so its chunks may skip its generator.
    offer: (event) => {
      push(event);
      return true;
    },
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

/** Whether one tool call already has a nested subtask waiting on the user (only one may). */
export type WaitClaim = { taken: boolean };

/**
 * Runs a tool's nested subtask (a plan step) under the tool's call `callId`: a node of its own at
 * depth + 1 with `start`/`end`, the subtask's level at depth + 2 under that node. Counted as a
 * subtask of the tree-wide budget. A subtask that waits on the user comes back `pending` with its
 * node still open (the tool suspends with it; the node ends on resume), unless another subtask of
 * the same call already waits: then its waiting calls are closed and it ends with an error.
 */
export async function runNestedSubtask(
  level: SubtaskParent,
  callId: string,
  task: NestedSubtask,
  push: (event: LoopEvent) => void,
  claim: WaitClaim = { taken: false },
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
  const settled = await nestedOutcome(level, task, push);
  if (settled.type === "suspend" && settled.nested && !claim.taken) {
    claim.taken = true;
    return {
      ok: false,
      text: WAITING,
      pending: { taskId: task.id, taskName: task.name, state: settled.nested },
    };
  }
  if (settled.type === "suspend") closeWaitingCalls(settled.nested, push);
  const outcome = settled.type === "suspend" ? errorOutcome(secondQuestion(task.title)) : settled;
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

const WAITING = "waiting for the user's answer";

const secondQuestion = (title: string) =>
  `step "${title}" stopped: it needed the user while another question to the user was already pending; run it again later`;

async function nestedOutcome(
  level: SubtaskParent,
  task: NestedSubtask,
  push: (event: LoopEvent) => void,
): Promise<CallOutcome> {
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
  const args: ChildTask = {
    title: task.title,
    instructions: task.instructions,
    tools,
    parentId: task.id,
    depth,
    ...(task.operation !== undefined && { operation: task.operation }),
  };
  // The step is a container like run_subtask: a tree-wide permit of its own, lent while its tools run.
  const { permits } = level.ctx;
  try {
    if (!(await permits.of(task.id).take(level.signal))) return stoppedOutcome(level.budget.breach !== null);
    return await runChildLevel(level, args, push);
  } finally {
    permits.end(task.id);
  }
}

/** Ends the calls a suspended nested subtree left open (deepest first, deferred ones too), so its nodes close. */
export function closeWaitingCalls(
  state: SuspendedState | null,
  push: (event: LoopEvent) => void,
  result = NOT_ASKED,
): void {
  for (const waiting of state ? waitingCalls(state) : []) {
    push({
      type: "tool_call_update",
      tool_call_id: waiting.id,
      name: waiting.name,
      status: "end",
      result,
      is_error: true,
      parent_id: waiting.parentId,
      depth: waiting.depth,
    });
  }
}

const NOT_ASKED = "not asked: another question to the user is already pending";

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

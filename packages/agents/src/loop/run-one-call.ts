import type { ToolCallEvent } from "../providers/provider-event.js";
import { describeSchemaErrors } from "../subtask/compile-output-schema.js";
import { FINISH_SUBTASK } from "../subtask/finish-subtask-tool.js";
import { runSubtask } from "../subtask/run-subtask.js";
import { RUN_SUBTASK, type RunSubtaskArgs } from "../subtask/run-subtask-tool.js";
import type { Tool } from "../tools/tool.js";
import { type CallOutcome, errorOutcome, stoppedOutcome } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";
import { ABORTED, abortable } from "./abortable.js";
import type { Level } from "./level.js";
import { toolCallOutcome, toolThrew } from "./tool-level.js";
import { toolServices } from "./tool-services.js";

/** Checks, budgets and runs one tool call; every failure is an outcome the model can read. */
export async function runOneCall(
  level: Level,
  call: ToolCallEvent,
  push: (event: LoopEvent) => void,
): Promise<CallOutcome> {
  if (call.invalidArgs) {
    return errorOutcome(`could not parse the arguments of ${call.name}: ${call.invalidArgs.message}`);
  }
  const maxDepth = level.budget.limits.MAX_DEPTH;
  if (call.name === RUN_SUBTASK && level.depth >= maxDepth) {
    return errorOutcome(`run_subtask is not available: the maximum subtask depth (${maxDepth}) is reached`);
  }
  const tool = level.tools.get(call.name);
  if (!tool) {
    return errorOutcome(
      `unknown tool ${call.name}; available: ${[...level.tools.keys()].join(", ") || "none"}`,
    );
  }
  const check = tool.validate(call.args);
  if (!check.ok) return errorOutcome(check.message);
  if (level.signal.aborted) return stoppedOutcome(level.budget.breach !== null);
  if (level.budget.tryStart("tool_calls")) return stoppedOutcome(true);
  level.usage.addToolCall();
  switch (call.name) {
    case RUN_SUBTASK:
      return withPermit(level, call.id, () =>
        runSubtask(level, call.id, check.value as RunSubtaskArgs, push),
      );
    case FINISH_SUBTASK:
      return finishSubtask(level, check.value as { result: unknown });
    default:
      return executeTool(level, tool, check.value, call.id, push);
  }
}

/**
 * Runs a call the user approved after it waited (`tool` unwrapped from its approval gate), the way
 * `runOneCall` runs any other: checked again, under the level's signal, lock, permit and services. It
 * is not counted again: it was counted when it asked.
 */
export async function runApprovedCall(
  level: Level,
  tool: Tool,
  args: unknown,
  toolCallId: string,
  push: (event: LoopEvent) => void,
): Promise<CallOutcome> {
  const check = tool.validate(args);
  if (!check.ok) return errorOutcome(check.message);
  if (level.signal.aborted) return stoppedOutcome(level.budget.breach !== null);
  return executeTool(level, tool, check.value, toolCallId, push);
}

/**
 * Runs a container call (run_subtask) under a tree-wide permit of its own: held while its level
 * calls the model, given back while that level's tool calls run (see ParallelPermits).
 */
async function withPermit(
  level: Level,
  callId: string,
  run: () => Promise<CallOutcome>,
): Promise<CallOutcome> {
  const { permits } = level.ctx;
  try {
    if (!(await permits.of(callId).take(level.signal))) return stoppedOutcome(level.budget.breach !== null);
    return await run();
  } finally {
    permits.end(callId);
  }
}

function finishSubtask(level: Level, args: { result: unknown }): CallOutcome {
  const validate = level.finishValidator;
  if (!validate) return errorOutcome("finish_subtask is only available in a subtask with an output schema");
  if (validate(args.result)) return { type: "finish", content: "result accepted", value: args.result };
  return errorOutcome(`the result does not match the output schema: ${describeSchemaErrors(validate)}`);
}

async function executeTool(
  level: Level,
  tool: Tool,
  args: unknown,
  toolCallId: string,
  emit: (event: LoopEvent) => void,
): Promise<CallOutcome> {
  const { signal } = level;
  const lockName = tool.requiresExclusiveLock;
  const release = lockName === undefined ? null : await level.ctx.locks.acquire(lockName, signal);
  if (lockName !== undefined && release === null) return stoppedOutcome(level.budget.breach !== null);
  const { permits } = level.ctx;
  if (!(await permits.of(toolCallId).take(signal))) {
    permits.end(toolCallId);
    release?.();
    return stoppedOutcome(level.budget.breach !== null);
  }
  const running = Promise.resolve().then(() =>
    tool.execute(args, {
      toolCallId,
      depth: level.depth,
      parentId: level.parentId,
      signal,
      emit,
      ...toolServices(level, toolCallId, emit),
    }),
  );
  // The lock and the permit are held until the tool really settles, even when the loop stops waiting.
  const settled = () => {
    permits.end(toolCallId);
    release?.();
  };
  void running.then(settled, settled);
  try {
    const outcome = await abortable(running, signal);
    if (outcome === ABORTED) return stoppedOutcome(level.budget.breach !== null);
    const owner = { depth: level.depth, toolNames: level.toolNames };
    return toolCallOutcome(outcome, owner, { name: tool.name, id: toolCallId });
  } catch (error) {
    return toolThrew(level.ctx.onToolCrash, {
      tool: tool.name,
      toolCallId,
      parentId: level.parentId,
      depth: level.depth,
      error,
    });
  }
}

import type { ProviderRequest } from "../providers/provider-request.js";
import { runNestedSubtask } from "../subtask/run-subtask.js";
import type { ModelCallRequest, ModelCallResult, ToolContext } from "../tools/tool.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { Level } from "./level.js";
import { quietModelCall } from "./model-call-record.js";
import { requestSettings } from "./request-settings.js";

type ToolServices = Required<Pick<ToolContext, "toolNames" | "callModel" | "runSubtask">>;

/**
 * What the loop lends a running tool that works like a small agent (create_plan): model calls and
 * nested subtasks that count in the turn exactly like the loop's own, under the tool's call. At most
 * one of the call's subtasks may wait on the user at a time. While its subtasks run, the call's
 * MAX_PARALLEL_PER_TURN permit is lent to them.
 */
export function toolServices(
  level: Level,
  toolCallId: string,
  push: (event: LoopEvent) => void,
): ToolServices {
  const claim = { taken: false };
  return {
    toolNames: level.toolNames,
    callModel: (request) => callModelFor(level, toolCallId, request),
    // The tool's permit goes back while its subtasks run (each takes its own): no waiting on itself.
    runSubtask: (task) => {
      const run = () => runNestedSubtask(level, toolCallId, task, push, claim);
      const own = level.ctx.permits.find(toolCallId);
      return own ? own.lend(run, level.signal) : run();
    },
  };
}

const BUDGET = "the turn's budget is exhausted";

/** One tool-less model call (with the turn's scope guidance): budget-checked, in the ledger and the level's usage, its tokens counted. */
async function callModelFor(
  level: Level,
  toolCallId: string,
  req: ModelCallRequest,
): Promise<ModelCallResult> {
  const { budget, params } = level;
  if (level.signal.aborted) return { ok: false, error: budget.breach ? BUDGET : "cancelled" };
  if (budget.tryStart("llm_calls")) return { ok: false, error: BUDGET };
  const { guidance } = level.ctx;
  const request: ProviderRequest = {
    model: params.model,
    // The scope's guidance binds the planner and reviewer like every level of the turn.
    systemPrompt: guidance ? `${req.systemPrompt}\n\n${guidance}` : req.systemPrompt,
    messages: req.messages,
    tools: [],
    ...requestSettings(params),
  };
  const { turn, record } = await quietModelCall(params.provider, request, level.signal, {
    operation: req.operation,
    depth: level.depth + 1,
    parentId: toolCallId,
    now: level.now,
  });
  level.usage.addLlmCall(record);
  level.ctx.onLlmCall?.(record);
  budget.addCost(record.costUsd);
  if (turn.aborted) return { ok: false, error: budget.breach ? BUDGET : "cancelled" };
  if (turn.error) return { ok: false, error: `model error: ${turn.error.message}` };
  const tokens = (turn.usage?.inputTokens ?? 0) + (turn.usage?.outputTokens ?? 0);
  if (budget.addTokens(tokens)) return { ok: false, error: BUDGET };
  return { ok: true, text: turn.text };
}

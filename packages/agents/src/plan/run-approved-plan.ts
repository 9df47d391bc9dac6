import type { Plan } from "@agentwire-chat/protocol";
import { EventChannel } from "../loop/event-channel.js";
import type { Level } from "../loop/level.js";
import { appendNewMessage, createLevel } from "../loop/level.js";
import { levelState } from "../loop/level-state.js";
import { runLevel } from "../loop/run-level.js";
import type { RunLoopParams } from "../loop/run-loop-params.js";
import { toolCallOutcome } from "../loop/tool-level.js";
import { toolServices } from "../loop/tool-services.js";
import type { AssistantModelMessage, ToolModelMessage } from "../providers/model-message.js";
import type { ToolOutcome } from "../tools/tool.js";
import { truncateResult } from "../tools/truncate-result.js";
import { outputText, stoppedOutcome } from "../turn/call-outcome.js";
import type { LoopEvent } from "../turn/loop-event.js";
import type { LoopResult } from "../turn/loop-result.js";
import type { SuspendedLevel, SuspendedState } from "../turn/suspended-state.js";
import { suspensionEvents } from "../turn/suspension-events.js";
import { UsageAccumulator } from "../usage/usage-accumulator.js";
import { CREATE_PLAN } from "./create-plan-tool.js";
import { executePlan } from "./execute-plan.js";
import type { PlanStore } from "./plan-store.js";
import { planSuspension } from "./plan-suspension.js";

export type ApprovedPlanParams = RunLoopParams & {
  plan: Plan;
  store?: PlanStore;
  /** The id of the call the plan runs as; default `plan_<plan id>`. */
  callId?: string;
};

/**
 * A root turn that starts by running a plan the user approved: the plan runs as a create_plan call
 * of the root level (its steps nested under it, counted in the turn), its result is added to the
 * conversation as that call's result, and the loop goes on so the model can answer with it.
 */
export async function* runApprovedPlan(p: ApprovedPlanParams): AsyncGenerator<LoopEvent, LoopResult> {
  const { plan, store, ...params } = p;
  const callId = p.callId ?? `plan_${plan.id}`;
  const level = createLevel({ ...params, depth: 0, parentId: null }, runLevel);
  const call = { id: callId, name: CREATE_PLAN, args: { plan_id: plan.id, approved: true } };
  const nest = { parent_id: null, depth: 0 };
  const startedAt = level.now();
  yield {
    type: "tool_call_update",
    tool_call_id: callId,
    name: CREATE_PLAN,
    status: "start",
    args: call.args,
    ...nest,
  };
  yield { type: "plan_created", tool_call_id: callId, execution_mode: "draft_only", plan };
  const asked: AssistantModelMessage = { role: "assistant", text: "", toolCalls: [call] };
  // The turn's first checkpoint: the root with the plan's call open, as if the model had made it. A
  // crash during the plan continues the turn from here (the call gets the restart error result and
  // the model decides) instead of ending it interrupted.
  yield { type: "checkpoint", level: { ...levelState(level, []), messages: [...params.history, asked] } };
  let content: string;
  let isError = false;
  try {
    if (level.budget.tryStart("tool_calls")) {
      ({ content, isError } = stoppedOutcome(true));
    } else {
      level.usage.addToolCall();
      const channel = new EventChannel<LoopEvent>();
      const services = toolServices(level, callId, (e) => channel.push(e));
      const defaultTools = services.toolNames.filter((n) => n !== CREATE_PLAN);
      const running = executePlan(
        plan,
        { ...services, signal: level.signal, defaultTools, callId },
        store,
      ).finally(() => channel.close());
      yield* channel.drain();
      const run = await running;
      if (run.status === "waiting") {
        // A step asks the user: the turn waits as if the model had called create_plan itself.
        const outcome = planSuspension(plan, run, defaultTools);
        return yield* suspendOnStep(level, params, call, outcome);
      }
      content = outputText(run);
    }
  } finally {
    level.dispose();
  }
  const cut = truncateResult(content, level.budget.limits.MAX_TOOL_RESULT_BYTES);
  level.budget.addResultBytes(cut.bytes);
  yield {
    type: "tool_call_update",
    tool_call_id: callId,
    name: CREATE_PLAN,
    status: "end",
    result: cut.text,
    is_error: isError,
    duration_ms: Math.max(0, Math.round((level.now() - startedAt) * 1000) / 1000),
    ...nest,
  };
  const answered: ToolModelMessage = {
    role: "tool",
    toolCallId: callId,
    name: CREATE_PLAN,
    content: cut.text,
    ...(isError && { isError: true }),
  };
  // Reported like the loop's own messages, so the turn stores them as rows of the conversation.
  appendNewMessage(level, asked);
  appendNewMessage(level, answered);
  const result = yield* runLevel({ ...params, history: [...params.history, asked, answered] });
  const usage = new UsageAccumulator();
  usage.merge(level.usage.snapshot());
  usage.merge(result.usage);
  return { ...result, usage: usage.snapshot() };
}

/**
 * Suspends the turn on the plan's waiting step: the root level's state holds the create_plan call as
 * pending (its assistant message stored now, its result on resume), then the plan's own level.
 */
function* suspendOnStep(
  level: Level,
  params: RunLoopParams,
  call: { id: string; name: string; args: unknown },
  outcome: ToolOutcome,
): Generator<LoopEvent, LoopResult> {
  const toolNames = level.toolNames;
  const nested = toolCallOutcome(outcome, { depth: 0, toolNames }, call);
  const asked: AssistantModelMessage = { role: "assistant", text: "", toolCalls: [call] };
  appendNewMessage(level, asked);
  const failed = {
    status: "error" as const,
    text: "",
    messages: level.messages,
    usage: level.usage.snapshot(),
    error: { code: "internal" as const, message: "a plan step waits without a saved state" },
  };
  if (nested.type !== "suspend" || !nested.nested) return failed;
  const root: SuspendedLevel = {
    depth: 0,
    parentId: null,
    systemPrompt: params.systemPrompt,
    toolNames,
    messages: [...params.history, asked],
    results: [],
    pendingCall: { id: call.id, name: call.name },
    iterationsUsed: 0,
    maxIterations: level.maxIterations,
  };
  const pending: SuspendedState = {
    ...nested.nested,
    model: params.model,
    levels: [root, ...nested.nested.levels],
  };
  yield* suspensionEvents(pending);
  // The turn ends here until the answer (as the root loop does when it suspends): stop the wall clock.
  level.budget.dispose();
  return {
    status: "waiting_user",
    text: "",
    messages: level.messages,
    usage: level.usage.snapshot(),
    pending,
  };
}

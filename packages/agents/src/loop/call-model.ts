import type { AssistantModelMessage, ModelMessage } from "../providers/model-message.js";
import type { ProviderRequest } from "../providers/provider-request.js";
import type { ContextReport } from "../turn/context-report.js";
import type { ContextUsageEvent, LoopEvent } from "../turn/loop-event.js";
import { agentState } from "./agent-state.js";
import { appendNewMessage, type Level } from "./level.js";
import { modelCallRecord } from "./model-call-record.js";
import { afterModelTurn, type NextStep, stopStep } from "./next-step.js";
import { estimateTokens, pruneHistory } from "./prune-history.js";
import { requestSettings } from "./request-settings.js";
import { streamModelTurn } from "./stream-model-turn.js";

/** The `call_model` step: budget check, one streamed model turn, its ledger record, the next step. */
export async function* callModel(level: Level): AsyncGenerator<LoopEvent, NextStep> {
  const { budget, params } = level;
  if (level.signal.aborted) return stopStep(level);
  if (level.iterations >= level.maxIterations) {
    const message = `stopped after ${level.maxIterations} model turns without a final answer`;
    return { type: "stop", status: "iteration_limit", error: { code: "iteration_limit", message } };
  }
  if (budget.tryStart("llm_calls")) return stopStep(level, true);
  const messages = requestMessages(level);
  if (params.context) yield contextUsage(level, params.context, messages);
  const thinking = agentState(level, "thinking");
  if (thinking) yield thinking;
  const request: ProviderRequest = {
    model: params.model,
    systemPrompt: params.systemPrompt,
    messages,
    tools: level.specs,
    ...requestSettings(params),
  };
  const startedAt = Date.now();
  const t0 = level.now();
  const turn = yield* streamModelTurn(params.provider, request, level.signal, level);
  level.iterations += 1;
  const record = modelCallRecord(params.provider, params.model, turn, {
    operation: params.operation ?? (level.depth === 0 ? "turn" : "subtask"),
    depth: level.depth,
    parentId: level.parentId,
    startedAt,
    latencyMs: level.now() - t0,
    t0,
  });
  level.usage.addLlmCall(record);
  level.ctx.onLlmCall?.(record);
  budget.addCost(record.costUsd);
  if (turn.text) level.lastText = turn.text;
  const complete = !turn.aborted && !turn.error;
  if (turn.text || (complete && turn.toolCalls.length > 0)) {
    const message: AssistantModelMessage = { role: "assistant", text: turn.text };
    if (turn.thinking.length > 0) message.thinking = turn.thinking;
    if (complete && turn.toolCalls.length > 0) {
      message.toolCalls = turn.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args ?? {} }));
    }
    appendNewMessage(level, message);
  }
  if (turn.aborted) return stopStep(level);
  if (turn.error) {
    return { type: "stop", status: "error", error: { code: "provider_error", message: turn.error.message } };
  }
  const tokens = (turn.usage?.inputTokens ?? 0) + (turn.usage?.outputTokens ?? 0);
  if (budget.addTokens(tokens)) return stopStep(level, true);
  return afterModelTurn(turn.text, turn.toolCalls, level.finishValidator !== null);
}

/**
 * The messages sent to the model: the whole conversation, or its pruned tail when it is too long
 * for MAX_HISTORY_TOKENS (or the root's context budget, when smaller).
 */
function requestMessages(level: Level) {
  const max = Math.min(level.budget.limits.MAX_HISTORY_TOKENS, level.params.context?.budget ?? Infinity);
  if (level.historyTokens + level.fixedTokens <= max) return level.messages.slice();
  return pruneHistory(level.messages, max, level.fixedTokens);
}

/** The `context_usage` frame of one model call: estimates of what `messages` and the fixed part send. */
function contextUsage(
  level: Level,
  report: ContextReport,
  messages: readonly ModelMessage[],
): ContextUsageEvent {
  let history = 0;
  for (const m of messages) history += estimateTokens(m);
  return {
    type: "context_usage",
    tokens: level.fixedTokens + history,
    budget: report.budget,
    summary_tokens: report.summaryTokens,
    scratchpad_tokens: report.scratchpadTokens,
    history_tokens: history,
    messages_summarized: report.messagesSummarized,
    messages_verbatim: messages.length,
    // Left out when the context was assembled, and what this call's pruning leaves out of the level's history.
    messages_dropped: report.messagesDropped + level.messages.length - messages.length,
  };
}

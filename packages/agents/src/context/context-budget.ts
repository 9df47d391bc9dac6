import { contentText } from "@agentwire-chat/protocol";
import { estimateTokens } from "../loop/prune-history.js";
import type { ModelMessage } from "../providers/model-message.js";

/** Characters of a message's text as the budget counts them (tool arguments and results included). */
export function messageChars(message: ModelMessage): number {
  switch (message.role) {
    case "user":
      return contentText(message.content).length;
    case "assistant": {
      let chars = message.text.length;
      for (const c of message.toolCalls ?? []) chars += c.name.length + JSON.stringify(c.args ?? null).length;
      return chars;
    }
    case "tool":
      return message.content.length;
  }
}

/** What the budget measures of a run of history messages. */
export type HistoryMeasure = { messages: number; chars: number; tokens: number };

/** Measures history messages, skipping those `skip` names (pinned documents). */
export function measureHistory(
  messages: readonly ModelMessage[],
  skip: ReadonlySet<number> = new Set(),
  from = 0,
): HistoryMeasure {
  const measure: HistoryMeasure = { messages: 0, chars: 0, tokens: 0 };
  for (let i = from; i < messages.length; i++) {
    if (skip.has(i)) continue;
    const m = messages[i] as ModelMessage;
    measure.messages += 1;
    measure.chars += messageChars(m);
    measure.tokens += estimateTokens(m);
  }
  return measure;
}

/** The limits a run of history messages is measured against. */
export type HistoryLimits = { maxMessages: number; maxChars: number; maxTokens: number };

/** True when a thread's unsummarized history is past any of the budget's limits. */
export function overBudget(measure: HistoryMeasure, fixedTokens: number, limits: HistoryLimits): boolean {
  return (
    measure.messages > limits.maxMessages ||
    measure.chars > limits.maxChars ||
    measure.tokens + fixedTokens > limits.maxTokens
  );
}

/** Each limit scaled by `fraction` (rounded down, at least 1). */
export function scaleLimits(limits: HistoryLimits, fraction: number): HistoryLimits {
  const scale = (n: number) => Math.max(1, Math.floor(n * fraction));
  return {
    maxMessages: scale(limits.maxMessages),
    maxChars: scale(limits.maxChars),
    maxTokens: scale(limits.maxTokens),
  };
}

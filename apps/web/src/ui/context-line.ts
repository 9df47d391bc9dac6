import type { ContextView } from "../state/thread-view.js";
import { plural } from "./format.js";

/** `850`, `12k`, `1.5k`: a token count short enough for a header. */
export function shortTokens(n: number): string {
  if (n < 1000) return String(n);
  const k = n / 1000;
  return `${k < 10 ? Number(k.toFixed(1)) : Math.round(k)}k`;
}

/** The header's one line about the model's context, e.g. `context 12k / 100k tokens · 180 messages summarized`. */
export function contextLine(context: ContextView): string {
  const parts = [`context ${shortTokens(context.tokens)} / ${shortTokens(context.budget)} tokens`];
  if (context.messagesSummarized > 0)
    parts.push(`${plural(context.messagesSummarized, "message")} summarized`);
  // The model did not see these at all: say so rather than let the meter look complete.
  if (context.messagesDropped > 0) parts.push(`${plural(context.messagesDropped, "older message")} left out`);
  return parts.join(" · ");
}

/** The breakdown, for the line's tooltip. */
export function contextDetail(context: ContextView): string {
  return [
    `summary ${shortTokens(context.summaryTokens)}`,
    `scratchpad ${shortTokens(context.scratchpadTokens)}`,
    `recent messages ${shortTokens(context.historyTokens)} (${plural(context.messagesVerbatim, "message")})`,
  ].join(" · ");
}

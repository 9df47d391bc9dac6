import { type CardCounts, countCards } from "@agentwire-chat/client";
import type { SpendWarning, TurnUsage } from "@agentwire-chat/protocol";
import { formatCost, formatCount, plural } from "./format.js";

/** What a usage line says for model calls whose tokens no provider reported. */
export const NOT_REPORTED = "tokens not reported";

// The footer counts the cards shown with the SDK's count, which the CLI's summary line uses too.
export { type CardCounts, countCards };

/**
 * The footer's one line of what a turn used, or nothing when there is nothing to say. Model calls
 * with no token counted were never reported (a stopped, interrupted or failed stream gets no report):
 * the line says so rather than "0 in · 0 out". Calls are counted from the cards shown, with the
 * server's counts as the fallback for a turn whose cards are not known.
 */
export function usageLine(usage: TurnUsage | undefined, counts: CardCounts): string | undefined {
  if (!usage) return undefined;
  const parts: string[] = [];
  const tokens = usage.input_tokens + usage.output_tokens + usage.cache_read_tokens > 0;
  if (tokens) {
    parts.push(`${formatCount(usage.input_tokens)} in · ${formatCount(usage.output_tokens)} out`);
    if (usage.cache_read_tokens > 0) parts.push(`${formatCount(usage.cache_read_tokens)} cached`);
  } else if (usage.llm_calls > 0) parts.push(NOT_REPORTED);
  if (usage.llm_calls > 0) parts.push(plural(usage.llm_calls, "model call"));
  const known = counts.tools + counts.subtasks + counts.refused > 0;
  const tools = known ? counts.tools : Math.max(0, usage.tool_calls - usage.subtasks);
  const subtasks = known ? counts.subtasks : usage.subtasks;
  if (tools > 0) parts.push(plural(tools, "tool call"));
  // Refused subtasks are cards too: the total is the number of subtask cards shown.
  const refused = counts.refused > 0 ? ` (${formatCount(counts.refused)} refused)` : "";
  if (subtasks + counts.refused > 0) parts.push(`${plural(subtasks + counts.refused, "subtask")}${refused}`);
  if (parts.length === 0) return undefined;
  if (tokens || usage.cost_usd > 0) parts.push(formatCost(usage.cost_usd, usage.cost_known));
  return parts.join(" · ");
}

/**
 * The turn's spend warning in words: `$4.10 of your $5.00 daily spend limit used; resets at
 * 2026-11-29 00:00 UTC`. A thread's limit does not reset.
 */
export function spendWarningLine(warning: SpendWarning | undefined): string | undefined {
  if (!warning) return undefined;
  const which = warning.limit === "user_daily" ? "daily" : "thread";
  const used = `${formatCost(warning.spent_usd, true)} of your ${formatCost(warning.limit_usd, true)} ${which} spend limit used`;
  if (warning.resets_at === null) return used;
  const at = new Date(warning.resets_at).toISOString().slice(0, 16).replace("T", " ");
  return `${used}; resets at ${at} UTC`;
}

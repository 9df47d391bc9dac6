import type { TurnUsage } from "@agentwire/protocol";
import { isSubtask, type TurnView } from "../state/thread-view.js";
import { formatCost, formatCount, plural } from "./format.js";

/** The turn's calls as its cards show them; the footer counts these, so it never disagrees with them. */
export type CardCounts = { tools: number; subtasks: number; refused: number };

/** Counts a turn's cards: run_subtask cards as subtasks (refused ones apart), every other card as a tool call. */
export function countCards(turn: TurnView): CardCounts {
  const counts: CardCounts = { tools: 0, subtasks: 0, refused: 0 };
  for (const card of Object.values(turn.cards)) {
    if (!isSubtask(card.name)) counts.tools += 1;
    else if (card.status === "refused") counts.refused += 1;
    else counts.subtasks += 1;
  }
  return counts;
}

/**
 * The footer's one line of what a turn used, or nothing when there is nothing to say. Token counts
 * show only when the provider reported some (a stopped stream often reports none: that is not
 * "0 in · 0 out"); calls are counted from the cards shown, with the server's counts as the fallback
 * for a turn whose cards are not known.
 */
export function usageLine(usage: TurnUsage | undefined, counts: CardCounts): string | undefined {
  if (!usage) return undefined;
  const parts: string[] = [];
  const tokens = usage.input_tokens + usage.output_tokens + usage.cache_read_tokens > 0;
  if (tokens) {
    parts.push(`${formatCount(usage.input_tokens)} in · ${formatCount(usage.output_tokens)} out`);
    if (usage.cache_read_tokens > 0) parts.push(`${formatCount(usage.cache_read_tokens)} cached`);
  }
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

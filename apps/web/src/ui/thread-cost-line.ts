import type { ThreadCost } from "../state/thread-cost.js";
import { formatCost, formatCount, plural } from "./format.js";
import { NOT_REPORTED } from "./usage-line.js";

/**
 * The thread bar's line of what the whole thread cost, or nothing before its first model call.
 * Model calls with no token counted were never reported: no "0 in · 0 out", and no "$0" for them.
 */
export function threadCostLine(cost: ThreadCost | undefined): string | undefined {
  if (!cost || cost.llmCalls === 0) return undefined;
  const calls = plural(cost.llmCalls, "model call");
  if (cost.inputTokens + cost.outputTokens === 0 && cost.costUsd === 0)
    return `Thread: ${NOT_REPORTED} · ${calls}`;
  const tokens = `${formatCount(cost.inputTokens)} in · ${formatCount(cost.outputTokens)} out`;
  return `Thread: ${formatCost(cost.costUsd, cost.costKnown)} · ${tokens} · ${calls}`;
}

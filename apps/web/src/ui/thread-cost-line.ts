import type { ThreadCost } from "../state/thread-cost.js";
import { formatCost, formatCount, plural } from "./format.js";

/** The thread bar's line of what the whole thread cost, or nothing before its first model call. */
export function threadCostLine(cost: ThreadCost | undefined): string | undefined {
  if (!cost || cost.llmCalls === 0) return undefined;
  const tokens = `${formatCount(cost.inputTokens)} in · ${formatCount(cost.outputTokens)} out`;
  return `Thread: ${formatCost(cost.costUsd, cost.costKnown)} · ${tokens} · ${plural(cost.llmCalls, "model call")}`;
}

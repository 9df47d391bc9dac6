import { contentText } from "@agentwire-chat/protocol";
import { estimateTokens } from "../loop/prune-history.js";
import type { ModelMessage } from "../providers/model-message.js";
import { type HistoryLimits, messageChars } from "./context-budget.js";

/**
 * Where the verbatim tail starts: the last `count` messages, not before `floor`, moved back to the
 * start of a tool unit (the assistant message whose calls the results answer) so a unit never splits.
 */
export function verbatimStart(messages: readonly ModelMessage[], count: number, floor = 0): number {
  let start = Math.max(floor, messages.length - count);
  while (start > floor && messages[start]?.role === "tool") start -= 1;
  return start;
}

/**
 * Where the longest tail that fits `limits` starts (pinned documents skipped: they are sent anyway),
 * not before `floor`. It starts at a tool unit's first message, moved forward rather than back so it
 * still fits; the newest unit (the current user message) is sent even when it alone does not fit.
 * Reads from the end and stops at the first message that no longer fits.
 */
export function fittingStart(
  messages: readonly ModelMessage[],
  pinned: ReadonlySet<number>,
  floor: number,
  limits: HistoryLimits,
  fixedTokens: number,
): number {
  let count = 0;
  let chars = 0;
  let tokens = fixedTokens;
  let start = messages.length;
  for (let i = messages.length - 1; i >= floor; i--) {
    if (!pinned.has(i)) {
      const m = messages[i] as ModelMessage;
      count += 1;
      chars += messageChars(m);
      tokens += estimateTokens(m);
      if (count > limits.maxMessages || chars > limits.maxChars || tokens > limits.maxTokens) break;
    }
    start = i;
  }
  while (start < messages.length && messages[start]?.role === "tool") start += 1;
  return Math.min(start, verbatimStart(messages, 1, floor));
}

/**
 * Indexes of pasted documents to keep verbatim. The rule: a user message of at least `minChars`
 * characters of text, among the latest `userTurns` user messages, is a document the user is still
 * talking about; older ones go to the summary like any other message.
 */
export function pinnedDocuments(
  messages: readonly ModelMessage[],
  minChars: number,
  userTurns: number,
): Set<number> {
  const pinned = new Set<number>();
  let seen = 0;
  for (let i = messages.length - 1; i >= 0 && seen < userTurns; i--) {
    const m = messages[i] as ModelMessage;
    if (m.role !== "user") continue;
    seen += 1;
    if (contentText(m.content).length >= minChars) pinned.add(i);
  }
  return pinned;
}

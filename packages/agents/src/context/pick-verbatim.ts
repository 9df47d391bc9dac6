import { contentText } from "@agentwire/protocol";
import type { ModelMessage } from "../providers/model-message.js";

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

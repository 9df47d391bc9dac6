import { contentText } from "@agentwire-chat/client";
import type { StoredMessage } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { terminalText } from "./terminal-text.js";

/** How many of a thread's last messages `--thread` shows, and how much of each. */
const SHOWN = 6;
const CHARS = 400;

/**
 * The lines that show where a thread stands: its last user and assistant messages, a user's as
 * `> text` (as typed at the prompt), an answer as its text. With `live` (a turn runs or waits), the
 * rows of that turn after its user message are left out: the resumed turn shows them itself.
 */
export function historyLines(rows: StoredMessage[], live: boolean): string[] {
  let said = rows.filter(
    (r, i) =>
      (r.role === "user" || r.role === "assistant") && contentText(r.content).trim() && !repeats(rows, i),
  );
  if (live) {
    const lastUser = said.findLastIndex((r) => r.role === "user");
    if (lastUser >= 0) said = said.slice(0, lastUser + 1);
  }
  return said.slice(-SHOWN).map((r, i, shown) => {
    const text = terminalText(preview(contentText(r.content).trim(), CHARS));
    if (r.role === "user") return `> ${text}`;
    // A model call a server restart cut, the turn's answer after it: said apart, as it was live.
    return r.status === "interrupted" && shown[i + 1]?.role === "assistant" ? `↯ interrupted: ${text}` : text;
  });
}

/**
 * A turn's end row that only repeats the text before it (the limit stopped it before the model wrote
 * more): that text was said once.
 */
function repeats(rows: StoredMessage[], i: number): boolean {
  const row = rows[i] as StoredMessage;
  if (row.role !== "assistant" || (row.tool_calls?.length ?? 0) > 0) return false;
  const before = rows.slice(0, i).findLast((r) => r.role === "assistant" || r.role === "user");
  return before?.role === "assistant" && contentText(before.content) === contentText(row.content);
}

import { contentText } from "@agentwire/client";
import type { StoredMessage } from "@agentwire/protocol";
import { preview } from "@agentwire/protocol/preview";
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
    (r) => (r.role === "user" || r.role === "assistant") && contentText(r.content).trim(),
  );
  if (live) {
    const lastUser = said.findLastIndex((r) => r.role === "user");
    if (lastUser >= 0) said = said.slice(0, lastUser + 1);
  }
  return said.slice(-SHOWN).map((r) => {
    const text = terminalText(preview(contentText(r.content).trim(), CHARS));
    return r.role === "user" ? `> ${text}` : text;
  });
}

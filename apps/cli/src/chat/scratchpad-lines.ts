import type { ScratchpadItem } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { terminalText } from "./terminal-text.js";

const TITLE_CHARS = 100;
const MARK: Record<ScratchpadItem["status"], string> = { active: "•", resolved: "✓", discarded: "✗" };

/**
 * A scratchpad patch as one short line per changed item (`  ✓ s1 task: Collect the logs (resolved)`):
 * enough to follow what the agent keeps track of without its details.
 */
export function scratchpadLines(items: readonly ScratchpadItem[]): string[] {
  return items.map((item) => {
    const title = terminalText(preview(item.title, TITLE_CHARS));
    const status = item.status === "active" ? "" : ` (${item.status})`;
    return `  ${MARK[item.status]} ${terminalText(item.id)} ${item.kind}: ${title}${status}`;
  });
}

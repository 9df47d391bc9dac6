import type { ScratchpadItem } from "@agentwire-chat/protocol";

/**
 * The scratchpad as the model reads it in its context: active items in full, then resolved and
 * discarded ones by title only (so the model does not redo or re-propose them). Empty for no items.
 */
export function renderScratchpad(items: readonly ScratchpadItem[]): string {
  if (items.length === 0) return "";
  const line = (i: ScratchpadItem) => {
    const related = i.related_ids?.length ? ` (related: ${i.related_ids.join(", ")})` : "";
    return `- [${i.id}] ${i.kind}: ${i.title}${related}${i.details ? `\n  ${i.details.replace(/\n/g, "\n  ")}` : ""}`;
  };
  const active = items.filter((i) => i.status === "active");
  const closed = items.filter((i) => i.status !== "active");
  const parts = ["Your scratchpad for this thread (update it with scratchpad_update):"];
  parts.push(active.length > 0 ? active.map(line).join("\n") : "(no active items)");
  if (closed.length > 0)
    parts.push(`Closed: ${closed.map((i) => `[${i.id}] ${i.title} (${i.status})`).join("; ")}`);
  return parts.join("\n");
}

import type { ScratchpadItem } from "@agentwire-chat/protocol";

/** The panel's two groups: what the agent still keeps in mind, and what it resolved or discarded. */
export function groupScratchpad(items: ScratchpadItem[]): {
  active: ScratchpadItem[];
  closed: ScratchpadItem[];
} {
  return {
    active: items.filter((i) => i.status === "active"),
    closed: items.filter((i) => i.status !== "active"),
  };
}

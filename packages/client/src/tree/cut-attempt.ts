import type { Child, TurnView } from "./thread-view.js";
import { updateChildren } from "./tree-ops.js";

/**
 * Sets a cut attempt apart in a container (the root: `null`, or a subtask's card): its text runs
 * after its last card or prompt, which is what the cut attempt streamed, become one `cut` child.
 * `text`, when the server names it (the root's interrupted row), is what was cut: only that end of
 * the runs moves, and text the client never saw is still shown cut. Thinking in the runs goes.
 */
export function setCutApart(
  turn: TurnView,
  containerId: string | null,
  detail: string,
  text?: string,
): TurnView {
  return updateChildren(turn, containerId, (children) => {
    // Not findLastIndex: older React Native engines lack it.
    let start = children.length;
    while (start > 0 && children[start - 1]?.kind === "text") start -= 1;
    const tail = children.slice(start);
    const seen = tail.map((child) => (child.kind === "text" && !child.thinking ? child.text : "")).join("");
    const cutText = text ?? seen;
    const kept: Child[] = [];
    if (text !== undefined && !seen.endsWith(text)) kept.push(...tail);
    else if (seen.length > cutText.length) {
      const key = `${containerId ?? "root"}:${start}`;
      kept.push({ kind: "text", key, text: seen.slice(0, seen.length - cutText.length), thinking: false });
    }
    const cut: Child = {
      kind: "cut",
      key: `${containerId ?? "root"}:cut:${children.length}`,
      text: cutText,
      detail,
    };
    return [...children.slice(0, start), ...kept, cut];
  });
}

import type { Child, TurnView } from "../state/thread-view.js";
import { Markdown } from "./markdown.js";
import { ToolCardView } from "./tool-card.js";

/** The text runs and tool cards of one container, in the order they happened. */
export function ChildrenView({ children, turn }: { children: Child[]; turn: TurnView }) {
  return (
    <>
      {children.map((child) => {
        if (child.kind === "text") {
          return child.thinking ? (
            <details key={child.key} class="thinking">
              <summary>Thinking</summary>
              <Markdown text={child.text} />
            </details>
          ) : (
            <Markdown key={child.key} text={child.text} />
          );
        }
        const card = turn.cards[child.id];
        return card ? <ToolCardView key={child.id} card={card} turn={turn} /> : null;
      })}
    </>
  );
}

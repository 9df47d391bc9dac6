import { isSubtask, type TurnView } from "./thread-view.js";

/**
 * Which subtask asks the question of ask_user call `toolCallId`, as its path of titles
 * (`Part A › Step 2`), when the turn runs several subtasks side by side: then two questions can be
 * open at once and an answer must not go to the wrong one. Undefined for the root's own question
 * or a lone subtask's (its card already says where it is). The CLI names them by the same rule.
 */
export function askingSubtask(turn: TurnView, toolCallId: string): string | undefined {
  const parentId = turn.cards[toolCallId]?.parentId;
  if (parentId == null || !turn.cards[parentId]) return undefined;
  const topLevel = Object.values(turn.cards).filter((c) => c.depth === 0 && isSubtask(c.name));
  if (topLevel.length < 2) return undefined;
  const names: string[] = [];
  const seen = new Set<string>();
  // A damaged stream could make a card its own ancestor: each card is named once.
  for (let id: string | null = parentId; id != null && !seen.has(id); id = turn.cards[id]?.parentId ?? null) {
    seen.add(id);
    const card = turn.cards[id];
    if (card) names.unshift(card.title ?? card.name);
  }
  return names.join(" › ");
}

/** The question as the page shows it: `Part A asks: Colour?` when it must say who asks. */
export function questionText(turn: TurnView | undefined, toolCallId: string, question: string): string {
  const asker = turn ? askingSubtask(turn, toolCallId) : undefined;
  return asker ? `${asker} asks: ${question}` : question;
}

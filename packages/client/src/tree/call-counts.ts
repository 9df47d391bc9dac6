import { isSubtask, type ToolCard, type TurnView } from "./thread-view.js";

/** A turn's calls as its cards show them: subtask cards (refused ones apart), every other card a tool call. */
export type CardCounts = { tools: number; subtasks: number; refused: number };

/**
 * Counts a turn's cards at every depth. Apps count calls from here (the web page's footer, the CLI's
 * summary line), so a count never disagrees with the cards, nor one app with another.
 */
export function countCards(turn: TurnView): CardCounts {
  const counts: CardCounts = { tools: 0, subtasks: 0, refused: 0 };
  for (const card of Object.values(turn.cards)) {
    if (!isSubtask(card.name)) counts.tools += 1;
    else if (card.status === "refused") counts.refused += 1;
    else counts.subtasks += 1;
  }
  return counts;
}

/**
 * What ran below a call, at any depth: how many calls, and those that failed or were refused (a
 * run_subtask past the depth limit), in tree order. One count for every app, so a card's "2 nested
 * calls" and its problem mark read the same on the web page and in the terminal.
 */
export type NestedCalls = { calls: number; failed: ToolCard[]; refused: ToolCard[] };

/** The calls below `cardId` in `turn`'s tree (none for an unknown card). */
export function nestedCalls(turn: TurnView, cardId: string): NestedCalls {
  const out: NestedCalls = { calls: 0, failed: [], refused: [] };
  const seen = new Set<string>([cardId]);
  const walk = (id: string) => {
    for (const child of turn.cards[id]?.children ?? []) {
      const card = child.kind === "card" ? turn.cards[child.id] : undefined;
      // A damaged stream could make a card its own ancestor: count each once, never loop.
      if (!card || seen.has(card.id)) continue;
      seen.add(card.id);
      out.calls += 1;
      if (card.status === "error") out.failed.push(card);
      else if (card.status === "refused") out.refused.push(card);
      walk(card.id);
    }
  };
  walk(cardId);
  return out;
}

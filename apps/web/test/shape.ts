import type { Child, TurnView } from "../src/state/thread-view.js";

export type Shape =
  | string
  | { approval: string }
  | { cut: string; detail: string }
  | { card: string; title?: string; status: string; depth: number; children: Shape[] };

/** A turn's tree as plain data; `withSubtaskText: false` drops text inside cards (history has none). */
export function shape(turn: TurnView, withSubtaskText = true): Shape[] {
  const walk = (children: Child[], nested: boolean): Shape[] =>
    children.flatMap((c): Shape[] => {
      if (c.kind === "text") return nested && !withSubtaskText ? [] : [c.text];
      if (c.kind === "approval") return [{ approval: c.id }];
      if (c.kind === "cut") return [{ cut: c.text, detail: c.detail }];
      const card = turn.cards[c.id]!;
      return [
        {
          card: `${card.name}#${card.id}`,
          ...(card.title !== undefined && { title: card.title }),
          status: card.status,
          depth: card.depth,
          children: walk(card.children, true),
        },
      ];
    });
  return walk(turn.root, false);
}

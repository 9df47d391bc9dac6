import type { Child, ToolCard, TurnView } from "./thread-view.js";

/** Replaces the children of a container: the turn's root (`null`) or a card. */
export function updateChildren(
  turn: TurnView,
  containerId: string | null,
  update: (children: Child[]) => Child[],
): TurnView {
  if (containerId === null) return { ...turn, root: update(turn.root) };
  const card = turn.cards[containerId];
  if (!card) return turn;
  return { ...turn, cards: { ...turn.cards, [containerId]: { ...card, children: update(card.children) } } };
}

/** Appends streamed text, merging with the container's last text run when the kind matches. */
export function appendText(
  turn: TurnView,
  containerId: string | null,
  text: string,
  thinking: boolean,
): TurnView {
  if (text === "") return turn;
  const withContainer = ensureContainer(turn, containerId);
  return updateChildren(withContainer, containerId, (children) => {
    const last = children[children.length - 1];
    if (last?.kind === "text" && last.thinking === thinking) {
      return [...children.slice(0, -1), { ...last, text: last.text + text }];
    }
    const key = `${containerId ?? "root"}:${children.length}`;
    return [...children, { kind: "text", key, text, thinking }];
  });
}

/** Adds or merges a card; a new card is appended to its parent's children. */
export function upsertCard(turn: TurnView, card: ToolCard): TurnView {
  const existing = turn.cards[card.id];
  if (existing) {
    // A placeholder made for an early child keeps its children; everything else comes from the frame.
    const merged: ToolCard = { ...existing, ...card, children: existing.children };
    return { ...turn, cards: { ...turn.cards, [card.id]: merged } };
  }
  const withParent = ensureContainer(turn, card.parentId);
  const added = { ...withParent, cards: { ...withParent.cards, [card.id]: card } };
  return updateChildren(added, card.parentId, (children) => [...children, { kind: "card", id: card.id }]);
}

/** Adds a child that is not text or a card (an approval prompt) at the end of a container. */
export function appendChild(turn: TurnView, containerId: string | null, child: Child): TurnView {
  return updateChildren(ensureContainer(turn, containerId), containerId, (children) => [...children, child]);
}

/**
 * A subtask ended by itself: its streamed text goes, its nested cards and its result stay. The
 * result stands for the text (it is the subtask's last answer), and the stored execution_tree holds
 * no text for it, so the live card now looks as it will after a reload.
 */
export function dropText(turn: TurnView, cardId: string): TurnView {
  const card = turn.cards[cardId];
  if (!card || !card.children.some((c) => c.kind === "text")) return turn;
  return updateChildren(turn, cardId, (children) => children.filter((c) => c.kind !== "text"));
}

/** Changes fields of an existing card. */
export function patchCard(turn: TurnView, id: string, patch: Partial<ToolCard>): TurnView {
  const card = turn.cards[id];
  if (!card) return turn;
  return { ...turn, cards: { ...turn.cards, [id]: { ...card, ...patch } } };
}

/**
 * Makes sure a container exists. The server sends a subtask's start before its children, so this
 * only matters for a damaged stream; a placeholder keeps the children visible instead of dropping them.
 */
function ensureContainer(turn: TurnView, containerId: string | null): TurnView {
  if (containerId === null || turn.cards[containerId]) return turn;
  return upsertCard(turn, {
    id: containerId,
    name: "run_subtask",
    parentId: null,
    depth: 0,
    argsPreview: "",
    status: "running",
    children: [],
  });
}

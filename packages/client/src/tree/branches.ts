import type { ServerFrameOf, StoredMessage } from "@agentwire-chat/protocol";
import { emptyTurn, lastTurn, type ThreadView, type TurnView } from "./thread-view.js";

/** A view's `siblings` from `GET /api/threads/:id/messages` rows (only rows with alternatives carry `sibling_ids`). */
export function siblingsFrom(rows: readonly StoredMessage[]): Record<string, string[]> {
  const siblings: Record<string, string[]> = {};
  for (const row of rows)
    if (row.sibling_ids && row.sibling_ids.length > 1) siblings[row.id] = row.sibling_ids;
  return siblings;
}

/** `id` is a new sibling of `displaced` (an edit's user message, a regenerate's first answer row). */
export function addSibling(view: ThreadView, displaced: string | undefined, id: string): ThreadView {
  if (displaced === undefined || displaced === id) return view;
  const known = view.siblings?.[displaced] ?? [displaced];
  const ids = [...known.filter((x) => x !== id), id];
  const siblings = { ...view.siblings };
  for (const x of ids) siblings[x] = ids;
  return { ...view, siblings };
}

/**
 * A user message that names its parent (an edit, or any message from a server with branches): the turns
 * after the parent's turn were another branch, so they leave the view, and the message that followed
 * the parent there becomes its sibling. Runs after the message made its (last) turn.
 */
export function onBranchedUser(view: ThreadView, message: StoredMessage): ThreadView {
  const parent = message.parent_message_id;
  // Not a new turn of this message (a settled turn's replay is skipped): nothing branched here.
  if (parent === undefined || lastTurn(view)?.user?.id !== message.id || view.skipping !== undefined)
    return view;
  const at = parent === null ? -1 : view.turns.findIndex((t) => t.answerMessageId === parent);
  // The parent's turn is not in the view (history without answer ids): nothing to cut safely.
  if (parent !== null && at < 0) return view;
  const own = view.turns.length - 1;
  if (at + 1 >= own) return view;
  const displaced = view.turns[at + 1]?.user?.id;
  const cut = { ...view, turns: [...view.turns.slice(0, at + 1), view.turns[own] as TurnView] };
  return addSibling(cut, displaced, message.id);
}

/**
 * `turn_started`: names the user message a turn answers. After its user `message` frame it only notes
 * the id; without one (a regenerate) the answered message's turn is replaced by a new one from there,
 * and the turns after it (the old branch) leave the view.
 */
export function onTurnStarted(view: ThreadView, frame: ServerFrameOf<"turn_started">): ThreadView {
  const id = frame.user_message_id;
  const last = lastTurn(view);
  if (last?.running && (last.user?.id === id || last.userMessageId === id))
    return { ...view, turns: [...view.turns.slice(0, -1), { ...last, userMessageId: id }] };
  const at = view.turns.findIndex((t) => t.user?.id === id || t.userMessageId === id);
  const old = view.turns[at];
  const turn: TurnView = {
    ...emptyTurn(`r:${frame.turn_id}`),
    userMessageId: id,
    ...(old?.user && { user: old.user }),
    ...((old?.firstAnswerId ?? old?.answerMessageId) !== undefined && {
      replacesAnswerId: old?.firstAnswerId ?? old?.answerMessageId,
    }),
  };
  return { ...view, turns: [...(at >= 0 ? view.turns.slice(0, at) : view.turns), turn] };
}

/** An assistant row of the turn: its first (a regenerate's new sibling) and its final one (the edit parent). */
export function onAnswerRow(
  view: ThreadView,
  turn: TurnView,
  message: StoredMessage,
): [ThreadView, TurnView] {
  let next = turn;
  let v = view;
  if (next.firstAnswerId === undefined) {
    next = { ...next, firstAnswerId: message.id };
    if (next.replacesAnswerId !== undefined && message.parent_message_id === next.userMessageId)
      v = addSibling(v, next.replacesAnswerId, message.id);
  }
  // The final row is the one endTurn stores with the execution tree; a row with tool calls is a step.
  if (message.execution_tree !== undefined || !message.tool_calls?.length)
    next = { ...next, answerMessageId: message.id };
  return [v, next];
}

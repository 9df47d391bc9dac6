import type { ToolModelMessage } from "../providers/model-message.js";
import type { SuspendedLevel, SuspendedState } from "./suspended-state.js";

/**
 * After level `i`'s pending call is answered: when a sibling call of that level still waits (a
 * deferred one), the state that asks it next, the answered result kept beside the level's other
 * results; null when none waits and the level can run on. The levels above stay as they were; the
 * sibling's own levels (its subtask's conversation) follow, so it resumes from its own question.
 */
export function askDeferred(
  state: SuspendedState,
  i: number,
  answered: ToolModelMessage,
): SuspendedState | null {
  const level = state.levels[i];
  const [next, ...rest] = level?.deferred ?? [];
  if (!level || !next) return null;
  const { deferred: _asked, ...kept } = level;
  const own: SuspendedLevel = {
    ...kept,
    results: [...level.results, answered],
    pendingCall: next.call,
    ...(rest.length > 0 && { deferred: rest }),
  };
  return {
    version: 1,
    model: state.model,
    toolCallId: next.nested?.toolCallId ?? next.call.id,
    suspension: next.suspension,
    levels: [...state.levels.slice(0, i), own, ...(next.nested?.levels ?? [])],
  };
}

/** Every call a suspended tree leaves open, deepest first (each level's deferred siblings with theirs). */
export function waitingCalls(state: SuspendedState): WaitingCall[] {
  const out: WaitingCall[] = [];
  for (const level of [...state.levels].reverse()) {
    for (const d of level.deferred ?? []) {
      if (d.nested) out.push(...waitingCalls(d.nested));
      out.push({ id: d.call.id, name: d.call.name, parentId: level.parentId, depth: level.depth });
    }
    const { id, name } = level.pendingCall;
    out.push({
      id,
      name,
      parentId: level.parentId,
      depth: level.depth,
      ...(level.tool && { tool: level.tool }),
    });
  }
  return out;
}

/** One open call of a suspended tree: where its `end` goes, and the tool progress a plan step's node holds. */
export type WaitingCall = {
  id: string;
  name: string;
  parentId: string | null;
  depth: number;
  tool?: SuspendedLevel["tool"];
};

import { emptyThread, type ThreadView } from "@agentwire-chat/client";
import type { ActiveTurnStatus } from "@agentwire-chat/protocol";

/** One tool call of the turn as the CLI tracks it, from its `start` frame to its `end`. */
export type CallInfo = {
  name: string;
  /** What the call is called on screen: a subtask's title, else the tool name and its args. */
  label: string;
  parentId: string | null;
  /** The depth-0 call that holds it (itself at depth 0): the one line that stands for it. */
  rootId: string;
  depth: number;
  /** Local clock (ms) when its start frame arrived. */
  startedAt: number;
  ended: boolean;
  /** The latest thing happening inside it: a nested call's name or the last line of its text. */
  activity?: string;
};

/** What the turn is doing when no call is running; `waiting_user` is the turn's own status word. */
export type TurnPhase =
  | "queued"
  | "thinking"
  | "writing"
  | "working"
  | Extract<ActiveTurnStatus, "waiting_user">;

/** What the renderer keeps between frames of one turn. */
export type TurnState = {
  atLineStart: boolean;
  startedAt: number;
  phase: TurnPhase;
  calls: Map<string, CallInfo>;
  /** The tail of each subtask's streamed text, by its run_subtask call id (for the status area). */
  subtaskText: Map<string, string>;
  /** Whether the turn sent an error frame (the command then exits 1). */
  failed: boolean;
  /** Whether any model text streamed (at any depth), and whether the turn was stopped. */
  streamed: boolean;
  stopped: boolean;
  /** The turn's tree as the SDK builds it: what a finish line counts below its call, as the web page does. */
  view: ThreadView;
};

/** A fresh state for a turn that starts at `now` (ms). */
export const initialTurnState = (now: number): TurnState => ({
  atLineStart: true,
  startedAt: now,
  phase: "thinking",
  calls: new Map(),
  subtaskText: new Map(),
  failed: false,
  streamed: false,
  stopped: false,
  view: emptyThread(),
});

/** The depth-0 calls still running, in the order they started. */
export function runningRootCalls(state: TurnState): CallInfo[] {
  return [...state.calls.values()].filter((c) => c.depth === 0 && !c.ended && c.name !== "ask_user");
}

/** A call's place in the tree by titles, e.g. `Part A › Deeper`. */
export function callPath(state: TurnState, call: CallInfo): string {
  const names = [call.label];
  let parent = call.parentId === null ? undefined : state.calls.get(call.parentId);
  while (parent) {
    names.unshift(parent.label);
    parent = parent.parentId === null ? undefined : state.calls.get(parent.parentId);
  }
  return names.join(" › ");
}

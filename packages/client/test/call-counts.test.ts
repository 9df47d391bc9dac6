import type { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { countCards, lastTurn, nestedCalls, reduceFrames, type TurnView } from "../src/index.js";

const call = (f: Record<string, unknown>): ServerFrame =>
  ({ type: "tool_call_update", thread_id: "t", parent_id: null, depth: 0, ...f }) as ServerFrame;
const REFUSAL = "run_subtask is not available: the maximum subtask depth (1) is reached";

/** Outer (a subtask) runs a lookup and asks for a deeper subtask, which the depth limit refuses. */
const frames: ServerFrame[] = [
  call({ tool_call_id: "o", name: "run_subtask", status: "start", title: "Outer" }),
  call({ tool_call_id: "l", name: "lookup", status: "start", parent_id: "o", depth: 1 }),
  call({ tool_call_id: "l", name: "lookup", status: "end", parent_id: "o", depth: 1, result: "3" }),
  call({ tool_call_id: "d", name: "run_subtask", status: "start", parent_id: "o", depth: 1, title: "Deep" }),
  call({
    tool_call_id: "d",
    name: "run_subtask",
    status: "end",
    parent_id: "o",
    depth: 1,
    result: REFUSAL,
    is_error: true,
    duration_ms: 1,
  }),
  // The subtask waited 12.2 s on the user somewhere: its end carries the time, wait included.
  call({ tool_call_id: "o", name: "run_subtask", status: "end", result: "went on", duration_ms: 12_200 }),
  { type: "chunk", thread_id: "t", content: "Done.", parent_id: null, depth: 0, done: true } as ServerFrame,
];

describe("call counts from the tree", () => {
  const turn = lastTurn(reduceFrames(frames)) as TurnView;

  it("nestedCalls counts every call below a card and lists the refused ones on the path", () => {
    const below = nestedCalls(turn, "o");
    expect(below.calls).toBe(2);
    expect(below.failed).toEqual([]);
    expect(below.refused.map((c) => [c.id, c.status, c.resultPreview])).toEqual([["d", "refused", REFUSAL]]);
    expect(nestedCalls(turn, "d")).toEqual({ calls: 0, failed: [], refused: [] });
    expect(nestedCalls(turn, "missing").calls).toBe(0);
  });

  it("countCards counts tools and subtasks, refused apart, at every depth", () => {
    expect(countCards(turn)).toEqual({ tools: 1, subtasks: 1, refused: 1 });
  });

  it("keeps the server's duration of a subtask that waited, after the turn ended", () => {
    expect(turn.running).toBe(false);
    expect(turn.cards.o?.durationMs).toBe(12_200);
  });

  it("never loops on a card that is its own ancestor (a damaged stream)", () => {
    const looped: TurnView = {
      ...turn,
      cards: {
        ...turn.cards,
        d: { ...(turn.cards.d as TurnView["cards"][string]), children: [{ kind: "card", id: "o" }] },
      },
    };
    expect(nestedCalls(looped, "o").calls).toBe(2);
  });
});

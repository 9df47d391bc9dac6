import { applyFrames } from "@agentwire-chat/client";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { threadFromHistory } from "../src/state/rebuild-from-history.js";
import { emptyThread } from "../src/state/thread-view.js";
import { chunk, done, row, stamp, usage } from "./fixtures.js";
import { shape } from "./shape.js";

const tree = { version: 1 as const, nodes: [] };
const firstPart: ServerFrame[] = [
  { type: "message", message: row({ id: "u", role: "user", content: "work" }) },
  chunk("Part one. "),
  { type: "budget_exceeded", reason: "llm_calls", limit: 1, observed: 2 },
  {
    type: "message",
    message: row({
      id: "a1",
      role: "assistant",
      content: "Part one. ",
      status: "budget_exceeded",
      execution_tree: tree,
    }),
  },
  { type: "usage", ...usage, llm_calls: 1 },
  { type: "agent_state", state: "idle" },
  done(),
];
const secondPart: ServerFrame[] = [
  { type: "agent_state", state: "resumed", detail: "continued after budget_exceeded with a fresh budget" },
  { type: "agent_state", state: "thinking" },
  chunk("Part two."),
  {
    type: "message",
    message: row({
      id: "a2",
      role: "assistant",
      content: "Part two.",
      status: "complete",
      execution_tree: tree,
    }),
  },
  { type: "usage", ...usage, llm_calls: 2 },
  { type: "agent_state", state: "idle" },
  done(),
];

describe("a turn continued after its budget (continue_turn)", () => {
  it("reopens the ended turn on agent_state resumed: one turn, running again, the limit's notice gone", () => {
    let view = applyFrames(emptyThread(), stamp("th_1", 1, firstPart));
    expect(view.turns[0]).toMatchObject({ running: false, budget: { reason: "llm_calls" } });
    view = applyFrames(view, stamp("th_1", firstPart.length + 1, secondPart.slice(0, 3)));
    expect(view.turns).toHaveLength(1);
    const running = view.turns[0]!;
    expect(running.running).toBe(true);
    expect(running.budget).toBeUndefined();
    view = applyFrames(view, stamp("th_1", firstPart.length + 4, secondPart.slice(3)));
    expect(view.turns).toHaveLength(1);
    const turn = view.turns[0]!;
    expect(shape(turn)).toEqual(["Part one. Part two."]);
    expect(turn).toMatchObject({ running: false, state: "idle", errors: [], usage: { llm_calls: 2 } });
    expect(turn.budget).toBeUndefined();
  });

  it("drops the iteration limit's notices when the turn goes on", () => {
    const limited: ServerFrame[] = [
      firstPart[0]!,
      chunk("Tried. "),
      {
        type: "message",
        message: row({ id: "a1", role: "assistant", content: "Tried. ", status: "iteration_limit" }),
      },
      {
        type: "error",
        code: "iteration_limit",
        message: "stopped after 2 model turns without a final answer",
      },
      { type: "agent_state", state: "idle" },
      done(),
    ];
    let view = applyFrames(emptyThread(), stamp("th_1", 1, limited));
    expect(view.turns[0]!.errors).toHaveLength(2);
    view = applyFrames(view, stamp("th_1", limited.length + 1, secondPart));
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]).toMatchObject({ running: false, errors: [] });
  });

  it("a reload after the continuation ended draws the stored turn once, and a replay of both parts adds nothing", () => {
    const rows = [
      row({ id: "u", role: "user", content: "work" }),
      row({
        id: "a1",
        role: "assistant",
        content: "Part one. ",
        status: "budget_exceeded",
        execution_tree: tree,
      }),
      row({ id: "a2", role: "assistant", content: "Part two.", status: "complete", execution_tree: tree }),
    ];
    const stored = threadFromHistory("th_1", rows);
    const replayed = applyFrames(stored, stamp("th_1", 1, [...firstPart, ...secondPart]));
    expect(replayed.turns).toHaveLength(1);
    expect(shape(replayed.turns[0]!)).toEqual(shape(stored.turns[0]!));
    expect(replayed.turns[0]!.running).toBe(false);
  });

  it("a reload between the parts, then Continue: the stored first part goes on live", () => {
    const rows = [
      row({ id: "u", role: "user", content: "work" }),
      row({
        id: "a1",
        role: "assistant",
        content: "Part one. ",
        status: "budget_exceeded",
        execution_tree: tree,
      }),
    ];
    let view = applyFrames(threadFromHistory("th_1", rows), stamp("th_1", 1, firstPart));
    view = applyFrames(view, stamp("th_1", firstPart.length + 1, secondPart));
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0]!.running).toBe(false);
    expect(view.turns[0]!.budget).toBeUndefined();
    expect(JSON.stringify(shape(view.turns[0]!))).toContain("Part two.");
  });
});

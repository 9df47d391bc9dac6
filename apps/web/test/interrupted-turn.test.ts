import { applyFrames } from "@agentwire-chat/client";
import type { ExecutionTreeSnapshot, ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { threadFromHistory } from "../src/state/rebuild-from-history.js";
import { emptyThread } from "../src/state/thread-view.js";
import { chunk, done, row, stamp, toolEnd, toolStart, usage } from "./fixtures.js";
import { shape } from "./shape.js";

/** The tree restart recovery stores for two parallel subtasks a crash cut short. */
const interruptedTree: ExecutionTreeSnapshot = {
  version: 1,
  nodes: ["A", "B"].map((part) => ({
    id: `s_${part}`,
    parent_id: null,
    name: "run_subtask",
    title: `Part ${part}`,
    args_preview: `{"title":"Part ${part}"}`,
    is_error: true,
    status: "interrupted",
    text: `part ${part}: working`,
    duration_ms: 1840,
  })),
};

const userRow = row({ id: "m_u", role: "user", content: "split it" });
const splitRow = row({
  id: "m_a1",
  role: "assistant",
  content: "Splitting.",
  tool_calls: [
    { id: "s_A", name: "run_subtask", args: { title: "Part A" } },
    { id: "s_B", name: "run_subtask", args: { title: "Part B" } },
  ],
});
const finalRow = row({
  id: "m_a2",
  role: "assistant",
  content: "",
  status: "interrupted",
  execution_tree: interruptedTree,
  usage,
});

/** What a client saw before the crash, then the closing frames recovery appended. */
function crashedTurn(ends: ServerFrame[] = []): ServerFrame[] {
  return stamp("th_1", 1, [
    { type: "message", message: userRow },
    chunk("Splitting."),
    { type: "message", message: splitRow },
    { ...toolStart("s_A", "run_subtask", { title: "Part A" }), title: "Part A" },
    { ...toolStart("s_B", "run_subtask", { title: "Part B" }), title: "Part B" },
    chunk("part A: ", "s_A", 1),
    chunk("part B: ", "s_B", 1),
    { type: "chunk", content: "hmm", thinking: true, parent_id: "s_A", depth: 1 },
    chunk("working", "s_A", 1),
    chunk("working", "s_B", 1),
    ...ends,
    { type: "message", message: finalRow },
    { type: "usage", ...usage },
    { type: "agent_state", state: "idle" },
    done(),
  ]);
}

const expectedShape = [
  "Splitting.",
  {
    card: "run_subtask#s_A",
    title: "Part A",
    status: "interrupted",
    depth: 0,
    children: ["part A: working"],
  },
  {
    card: "run_subtask#s_B",
    title: "Part B",
    status: "interrupted",
    depth: 0,
    children: ["part B: working"],
  },
];

describe("a turn the server interrupted", () => {
  it("after a reload: its subtasks draw interrupted (not done), with their stored text and real duration", () => {
    const turn = threadFromHistory("th_1", [userRow, splitRow, finalRow]).turns[0]!;
    expect(shape(turn)).toEqual(expectedShape);
    expect(turn.cards.s_A?.durationMs).toBe(1840);
    expect(turn.errors).toEqual(["turn ended: interrupted"]);
  });

  it("replayed after a crash (no ends): the cards end interrupted with their text, as a reload shows them", () => {
    const live = applyFrames(emptyThread(), crashedTurn()).turns[0]!;
    expect(shape(live)).toEqual(expectedShape);
    expect(live.cards.s_B?.durationMs).toBe(1840);
  });

  it("live through a shutdown (ends as cancelled): the cards end interrupted, their text back", () => {
    const ends = [
      toolEnd("s_A", "run_subtask", 'subtask "Part A" cancelled', null, 0, { is_error: true }),
      toolEnd("s_B", "run_subtask", 'subtask "Part B" cancelled', null, 0, { is_error: true }),
    ];
    const live = applyFrames(emptyThread(), crashedTurn(ends)).turns[0]!;
    expect(shape(live)).toEqual(expectedShape);
  });
});

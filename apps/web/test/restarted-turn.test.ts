import { applyFrames } from "@agentwire-chat/client";
import { RESTART_DETAIL, type ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { threadFromHistory } from "../src/state/rebuild-from-history.js";
import { emptyThread } from "../src/state/thread-view.js";
import { chunk, done, row, stamp, toolEnd, toolStart, usage } from "./fixtures.js";
import { shape } from "./shape.js";

// Turns a server restart cut and continued (docs/protocol.md, A crashed turn continues): the frames
// a client sees live, and the rows a reload reads, must draw the same tree.

const userRow = row({ id: "m_u", role: "user", content: "count" });
const tokens = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `tok${from + i} `).join("");

describe("a turn cut by a restart before any step completed", () => {
  const cutRow = row({ id: "m_cut", role: "assistant", content: tokens(0, 29), status: "interrupted" });
  const finalRow = row({ id: "m_end", role: "assistant", content: tokens(0, 3), usage });
  const frames: ServerFrame[] = stamp("th_1", 1, [
    { type: "message", message: userRow },
    { type: "agent_state", state: "thinking" },
    ...Array.from({ length: 30 }, (_, i) => chunk(`tok${i} `)),
    { type: "message", message: cutRow },
    { type: "agent_state", state: "resumed", detail: RESTART_DETAIL.rerun },
    { type: "agent_state", state: "thinking" },
    ...Array.from({ length: 4 }, (_, i) => chunk(`tok${i} `)),
    { type: "message", message: finalRow },
    { type: "usage", ...usage },
    { type: "agent_state", state: "idle" },
    done(),
  ]);
  const expected = [{ cut: tokens(0, 29), detail: RESTART_DETAIL.rerun }, tokens(0, 3)];

  it("live: the cut attempt is apart from the new one (no `tok29 tok0`), with the server's detail, and no error", () => {
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(turn)).toEqual(expected);
    expect(turn.errors).toEqual([]);
    expect(turn.running).toBe(false);
    expect(JSON.stringify(turn.root)).not.toContain("tok29 tok0");
  });

  it("while the new attempt streams, it is the answer: the cut one is already apart", () => {
    const turn = applyFrames(emptyThread(), frames.slice(0, 37)).turns[0]!;
    expect(shape(turn)).toEqual([{ cut: tokens(0, 29), detail: RESTART_DETAIL.rerun }, "tok0 tok1 "]);
    expect(turn.running).toBe(true);
  });

  it("after a reload: the same tree from the stored rows", () => {
    const turn = threadFromHistory("th_1", [userRow, cutRow, finalRow]).turns[0]!;
    expect(shape(turn)).toEqual(expected);
    expect(turn.errors).toEqual([]);
  });

  it("ended interrupted (not continued): the answer so far stays the answer, not a cut attempt", () => {
    const ended = stamp("th_1", 1, [
      { type: "message", message: userRow },
      chunk("Half an answer"),
      { type: "message", message: { ...cutRow, content: "Half an answer" } },
      { type: "usage", ...usage },
      { type: "agent_state", state: "idle" },
      done(),
    ]);
    const turn = applyFrames(emptyThread(), ended).turns[0]!;
    expect(shape(turn)).toEqual(["Half an answer"]);
    expect(turn.errors).toEqual(["turn ended: interrupted"]);
  });
});

describe("a subtask cut by a restart", () => {
  const splitRow = row({
    id: "m_a1",
    role: "assistant",
    content: "Delegating.",
    tool_calls: [{ id: "s1", name: "run_subtask", args: { title: "R" } }],
  });
  const start = { ...toolStart("s1", "run_subtask", { title: "R" }), title: "R" };
  const finalRow = (attempts: { text: string; after_calls: number }[], children = 0) =>
    row({
      id: "m_end",
      role: "assistant",
      content: "Done.",
      usage,
      execution_tree: {
        version: 1,
        nodes: [
          {
            id: "s1",
            parent_id: null,
            name: "run_subtask",
            title: "R",
            result_preview: "R whole",
            duration_ms: 9,
            attempts: attempts.map((a) => ({ status: "interrupted" as const, ...a })),
          },
          ...(children > 0
            ? [{ id: "a1", parent_id: "s1", name: "echo", result_preview: "echo:x", duration_ms: 1 }]
            : []),
        ],
      },
    });
  const turnOf = (middle: ServerFrame[], final: ServerFrame) =>
    stamp("th_1", 1, [
      { type: "message", message: userRow },
      chunk("Delegating."),
      { type: "message", message: splitRow },
      start,
      ...middle,
      final,
      { type: "usage", ...usage },
      { type: "agent_state", state: "idle" },
      done(),
    ]);

  it("in its first model call: its second start (attempt 2) sets the cut text apart; it stays after the card ends, live and after a reload", () => {
    const final = finalRow([{ text: "R half", after_calls: 0 }]);
    const frames = turnOf(
      [
        chunk("R ", "s1", 1),
        chunk("half", "s1", 1),
        { type: "agent_state", state: "resumed", detail: RESTART_DETAIL.continues },
        { ...start, attempt: 2 },
        start,
        chunk("R whole", "s1", 1),
        toolEnd("s1", "run_subtask", "R whole"),
        chunk("Done."),
      ],
      { type: "message", message: final },
    );
    const cut = { cut: "R half", detail: RESTART_DETAIL.subtaskRerun };
    const expected = [
      "Delegating.",
      { card: "run_subtask#s1", title: "R", status: "complete", depth: 0, children: [cut] },
      { cut: "", detail: RESTART_DETAIL.continues },
      "Done.",
    ];
    // Mid-way: the new attempt's text streams after the cut one, not glued to it.
    const streaming = applyFrames(emptyThread(), frames.slice(0, 10)).turns[0]!;
    expect(shape(streaming)[1]).toMatchObject({ children: [cut, "R whole"] });
    const live = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(live)).toEqual(expected);
    // A reload has no restart notice at the root (no row stands for it); the subtask's attempt is kept.
    const reloaded = threadFromHistory("th_1", [userRow, splitRow, final]).turns[0]!;
    expect(shape(reloaded)).toEqual(expected.filter((c) => typeof c === "string" || !("cut" in c)));
  });

  it("after a nested call: only the text since that call is cut, and it sits after the call", () => {
    const final = finalRow([{ text: "A half", after_calls: 1 }], 1);
    const frames = turnOf(
      [
        toolStart("a1", "echo", { text: "x" }, "s1", 1),
        toolEnd("a1", "echo", "echo:x", "s1", 1),
        chunk("A half", "s1", 1),
        { type: "agent_state", state: "resumed", detail: RESTART_DETAIL.continues },
        { ...start, attempt: 2 },
        chunk("A done", "s1", 1),
        toolEnd("s1", "run_subtask", "R whole"),
        chunk("Done."),
      ],
      { type: "message", message: final },
    );
    const card = {
      card: "run_subtask#s1",
      title: "R",
      status: "complete",
      depth: 0,
      children: [
        { card: "echo#a1", status: "complete", depth: 1, children: [] },
        { cut: "A half", detail: RESTART_DETAIL.subtaskContinues },
      ],
    };
    const live = applyFrames(emptyThread(), frames).turns[0]!;
    expect(shape(live)).toEqual([
      "Delegating.",
      card,
      { cut: "", detail: RESTART_DETAIL.continues },
      "Done.",
    ]);
    const reloaded = threadFromHistory("th_1", [userRow, splitRow, final]).turns[0]!;
    expect(shape(reloaded)).toEqual(["Delegating.", card, "Done."]);
  });
});

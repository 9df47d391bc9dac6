import { applyFrames } from "@agentwire-chat/client";
import type { Plan, ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { decidePlan, undecidePlan } from "../src/state/local-actions.js";
import { planFrom, planFromSummary, planLayout } from "../src/state/plan-view.js";
import { threadFromHistory } from "../src/state/rebuild-from-history.js";
import { emptyThread } from "../src/state/thread-view.js";
import { chunk, done, row, stamp, toolEnd, toolStart } from "./fixtures.js";

const plan: Plan = {
  id: "p1",
  goal: "Compare two shops",
  stages: [
    {
      id: "g1",
      name: "Gather",
      mode: "parallel",
      steps: [
        { id: "a", title: "Price A", instructions: "Find A" },
        { id: "b", title: "Price B", instructions: "Find B" },
      ],
    },
    {
      id: "g2",
      name: "Decide",
      mode: "sequence",
      steps: [{ id: "c", title: "Pick one", instructions: "Pick" }],
    },
  ],
};

/** An auto_execute plan: step A done, step B still running, step C not started. */
function runningPlanFrames(): ServerFrame[] {
  return stamp("th_p", 1, [
    { type: "message", message: row({ id: "u1", thread_id: "th_p", role: "user", content: "Compare" }) },
    chunk("Planning."),
    toolStart("cp", "create_plan", { objective: "Compare two shops" }),
    { type: "plan_created", tool_call_id: "cp", execution_mode: "auto_execute", plan },
    // The server names a step's call `<create_plan call>/<step id>` and titles it with the step's title.
    { ...toolStart("cp/a", "plan_step", { step_id: "a" }, "cp", 1), title: "Price A" },
    chunk("Looking at A.", "cp/a", 1),
    // Title only: matched all the same.
    toolStart("x9", "run_subtask", { title: "Price B" }, "cp", 1),
    toolEnd("cp/a", "plan_step", "A costs 3", "cp", 1),
  ]);
}

describe("plans", () => {
  it("puts the plan on its create_plan card and matches steps to subtasks by id, then title", () => {
    const turn = applyFrames(emptyThread(), runningPlanFrames()).turns[0]!;
    const card = turn.cards.cp!;
    expect(card.plan).toMatchObject({ plan, mode: "auto_execute", awaitingDecision: false, reviews: [] });
    const { stages, rest } = planLayout(card, turn);
    expect(stages.map((s) => s.steps.map((st) => [st.step.id, st.card?.id, st.card?.status]))).toEqual([
      [
        ["a", "cp/a", "complete"],
        ["b", "x9", "running"],
      ],
      [["c", undefined, undefined]],
    ]);
    expect(rest).toEqual([]);
    // A finished step keeps its result, not its streamed text (as a reload shows it).
    expect(turn.cards["cp/a"]).toMatchObject({ title: "Price A", resultPreview: "A costs 3", children: [] });
  });

  it("keeps a subtask no step claims visible beside the stages", () => {
    const frames = [
      ...runningPlanFrames(),
      ...stamp("th_p", 9, [toolStart("extra", "run_subtask", { title: "Something else" }, "cp", 1)]),
    ];
    const turn = applyFrames(emptyThread(), frames).turns[0]!;
    expect(planLayout(turn.cards.cp!, turn).rest).toEqual([{ kind: "card", id: "extra" }]);
  });

  it("shows a draft's decision buttons until the user decides, even when the frame is replayed", () => {
    const ready: ServerFrame = { type: "plan_ready_for_review", tool_call_id: "cp", plan };
    const frames = stamp("th_p", 1, [
      { type: "message", message: row({ id: "u1", thread_id: "th_p", role: "user", content: "Plan it" }) },
      toolStart("cp", "create_plan", { objective: "x", execution_mode: "draft_only" }),
      { type: "plan_created", tool_call_id: "cp", execution_mode: "draft_only", plan },
      ready,
      toolEnd("cp", "create_plan", "The plan waits for the user's review."),
      done(),
    ]);
    const view = applyFrames(emptyThread(), frames);
    const card = view.turns[0]!.cards.cp!;
    // The turn ended: the draft still waits (the decision starts a following turn).
    expect(view.turns[0]!.running).toBe(false);
    expect(card.plan?.awaitingDecision).toBe(true);

    const decided = decidePlan(view, "cp", { decision: "revise", feedback: "add a step" });
    expect(decided.turns[0]!.cards.cp!.plan).toMatchObject({
      awaitingDecision: false,
      decision: { decision: "revise", feedback: "add a step" },
    });
    // A full replay rebuilds the turn from its frames: the old request must not ask again.
    const replayed = applyFrames({ ...decided, lastSeq: null }, frames);
    expect(replayed.turns).toHaveLength(1);
    expect(replayed.turns[0]!.cards.cp?.plan).toMatchObject({
      awaitingDecision: false,
      decision: { decision: "revise" },
    });

    // The server refused the decision (busy, or decided elsewhere): the buttons come back, replay too.
    const refused = undecidePlan(decided, "cp");
    expect(refused.turns[0]!.cards.cp!.plan?.awaitingDecision).toBe(true);
    expect(refused.turns[0]!.cards.cp!.plan?.decision).toBeUndefined();
    const replayedAgain = applyFrames({ ...refused, lastSeq: null }, frames);
    expect(replayedAgain.turns[0]!.cards.cp?.plan?.awaitingDecision).toBe(true);
  });

  it("records each review round once, in order", () => {
    const review = (round: number, verdict: "approve" | "reject", notes: string): ServerFrame => ({
      type: "plan_review",
      tool_call_id: "cp",
      plan_id: "p1",
      verdict,
      notes,
      round,
    });
    const frames = stamp("th_p", 1, [
      { type: "message", message: row({ id: "u1", thread_id: "th_p", role: "user", content: "Plan it" }) },
      toolStart("cp", "create_plan", { objective: "x" }),
      { type: "plan_created", tool_call_id: "cp", execution_mode: "agent_review", plan },
      review(2, "approve", "good now"),
      review(1, "reject", "step C is vague"),
      review(2, "approve", "good now"),
    ]);
    const card = applyFrames(emptyThread(), frames).turns[0]!.cards.cp!;
    expect(card.plan?.reviews).toEqual([
      { verdict: "reject", notes: "step C is vague", round: 1 },
      { verdict: "approve", notes: "good now", round: 2 },
    ]);
  });

  it("rebuilds the plan after a reload from the stored create_plan result, buttons only on the newest turn", () => {
    const call = { id: "cp", name: "create_plan", args: { objective: "x", execution_mode: "draft_only" } };
    const result = JSON.stringify({ status: "awaiting_user_review", plan_id: "p1", plan });
    const turnRows = (n: string) => [
      row({ id: `u${n}`, role: "user", content: "Plan it" }),
      row({ id: `a${n}`, role: "assistant", content: "", tool_calls: [{ ...call, id: `cp${n}` }] }),
      row({ id: `t${n}`, role: "tool", tool_call_id: `cp${n}`, content: result }),
      row({ id: `f${n}`, role: "assistant", content: "Here is the plan." }),
    ];
    const view = threadFromHistory("th_1", [...turnRows("1"), ...turnRows("2")]);
    expect(view.turns[0]!.cards.cp1?.plan).toMatchObject({
      plan,
      awaitingDecision: false,
    });
    expect(view.turns[1]!.cards.cp2?.plan).toMatchObject({
      plan,
      awaitingDecision: true,
    });
  });

  it("rebuilds an approved draft's run from the draft's stored plan and the run's step nodes", () => {
    const draft = JSON.stringify({ status: "awaiting_user_review", plan_id: "p1", plan, note: "…" });
    const summary = JSON.stringify({
      plan_id: "p1",
      goal: plan.goal,
      status: "complete",
      steps: [
        { id: "a", title: "Price A", status: "ok", result: "3" },
        { id: "b", title: "Price B", status: "ok", result: "4" },
        { id: "c", title: "Pick one", status: "ok", result: "A" },
      ],
    });
    const runCall = { id: "plan_p1", name: "create_plan", args: { plan_id: "p1", approved: true } };
    const step = (id: string, title: string) => ({
      id: `plan_p1/${id}`,
      parent_id: "plan_p1",
      name: "plan_step",
      title,
      result_preview: `${title} done`,
      duration_ms: 3,
    });
    const view = threadFromHistory("th_1", [
      row({ id: "u1", role: "user", content: "Plan it" }),
      row({
        id: "a1",
        role: "assistant",
        content: "",
        tool_calls: [{ id: "cp", name: "create_plan", args: {} }],
      }),
      row({ id: "t1", role: "tool", tool_call_id: "cp", content: draft }),
      row({ id: "f1", role: "assistant", content: "The plan is ready for your review." }),
      row({ id: "u2", role: "user", content: "Approved the plan." }),
      row({ id: "a2", role: "assistant", content: "", tool_calls: [runCall] }),
      row({ id: "t2", role: "tool", tool_call_id: "plan_p1", content: summary }),
      row({
        id: "f2",
        role: "assistant",
        content: "All done.",
        execution_tree: {
          version: 1,
          nodes: [
            { id: "plan_p1", parent_id: null, name: "create_plan", result_preview: summary, duration_ms: 9 },
            step("a", "Price A"),
            step("b", "Price B"),
            step("c", "Pick one"),
          ],
        },
      }),
    ]);
    // The draft's turn: decided since (a later turn exists), so no buttons; its steps are planned.
    expect(view.turns[0]!.cards.cp?.plan).toMatchObject({ plan, draft: true, awaitingDecision: false });
    const run = view.turns[1]!;
    const card = run.cards.plan_p1!;
    // The stages come from the stored draft, not the one-stage summary.
    expect(card.plan?.plan).toEqual(plan);
    expect(card.plan?.awaitingDecision).toBe(false);
    const { stages, rest } = planLayout(card, run);
    expect(stages.flatMap((s) => s.steps.map((st) => [st.card?.id, st.card?.status]))).toEqual([
      ["plan_p1/a", "complete"],
      ["plan_p1/b", "complete"],
      ["plan_p1/c", "complete"],
    ]);
    expect(rest).toEqual([]);
  });

  it("falls back to the summary's steps when no stored draft has the plan (an auto_execute run)", () => {
    const summary = {
      plan_id: "p7",
      goal: "G",
      status: "failed",
      steps: [{ id: "a", title: "A", status: "error" }],
    };
    expect(planFromSummary(JSON.stringify(summary))).toEqual({
      id: "p7",
      goal: "G",
      stages: [
        { id: "steps", name: "Steps", mode: "sequence", steps: [{ id: "a", title: "A", instructions: "" }] },
      ],
    });
    expect(planFromSummary({ plan_id: "p7", goal: "G", steps: [] })).toBeUndefined();
  });

  it("lays an auto_execute run out in its stages again from the summary's stage outline", () => {
    const summary = {
      plan_id: "p8",
      goal: "G",
      status: "complete",
      stages: [
        { id: "s1", name: "Gather", mode: "parallel", step_ids: ["a", "b"] },
        { id: "s2", name: "Write", mode: "sequence", step_ids: ["c", "unknown"] },
      ],
      steps: ["a", "b", "c"].map((id) => ({ id, title: id.toUpperCase(), status: "ok" })),
    };
    const step = (id: string) => ({ id, title: id.toUpperCase(), instructions: "" });
    expect(planFromSummary(summary)?.stages).toEqual([
      { id: "s1", name: "Gather", mode: "parallel", steps: [step("a"), step("b")] },
      { id: "s2", name: "Write", mode: "sequence", steps: [step("c")] },
    ]);
  });

  it("reads a plan only when it is well formed", () => {
    expect(planFrom(plan)).toEqual(plan);
    expect(planFrom(JSON.stringify({ plan }))).toEqual(plan);
    expect(planFrom("The plan ran: 3 steps done.")).toBeUndefined();
    expect(planFrom({ id: "p", goal: "g", stages: [] })).toBeUndefined();
    expect(planFrom({ ...plan, stages: [{ ...plan.stages[0], mode: "sideways" }] })).toBeUndefined();
  });
});

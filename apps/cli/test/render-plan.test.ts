import type { Plan, ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { renderFrame } from "../src/chat/render-frame.js";
import { initialTurnState } from "../src/chat/turn-state.js";

const plan: Plan = {
  id: "p1",
  goal: "A short report",
  stages: [
    {
      id: "r",
      name: "Research",
      mode: "parallel",
      steps: [
        { id: "facts", title: "Collect facts", instructions: "not shown" },
        { id: "quotes", title: "Find quotes", instructions: "not shown", inputs: ["facts"] },
      ],
    },
    {
      id: "w",
      name: "Write",
      mode: "sequence",
      steps: [{ id: "draft", title: "Write it", instructions: "not shown", inputs: ["facts", "quotes"] }],
    },
  ],
};

const options = { verbose: false, live: true };
const render = (frames: object[]) => {
  const state = initialTurnState(0);
  return frames.map((f) => renderFrame(f as ServerFrame, state, options, 0)).join("");
};

describe("renderFrame: plans", () => {
  it("prints a new plan as its goal with numbered stages and steps, inputs by number", () => {
    const out = render([{ type: "plan_created", tool_call_id: "c", execution_mode: "auto_execute", plan }]);
    expect(out).toBe(
      [
        "· plan (auto execute)",
        "  goal: A short report",
        "  1. Research (in parallel)",
        "    1.1 Collect facts",
        "    1.2 Find quotes (after 1.1)",
        "  2. Write (in order)",
        "    2.1 Write it (after 1.1, 1.2)",
        "",
      ].join("\n"),
    );
  });

  it("says when a plan waits for review, and prints the reviewer's verdicts", () => {
    const out = render([
      { type: "chunk", content: "Planning", parent_id: null, depth: 0 },
      { type: "plan_ready_for_review", tool_call_id: "c", plan },
      {
        type: "plan_review",
        tool_call_id: "c",
        plan_id: "p1",
        verdict: "reject",
        notes: "too long",
        round: 1,
      },
      { type: "plan_review", tool_call_id: "c", plan_id: "p1", verdict: "approve", notes: "", round: 2 },
    ]);
    expect(out).toBe(
      "Planning\n· the plan waits for your review (plan p1): approve or revise it\n" +
        "· plan review 1: rejected — too long\n· plan review 2: approved\n",
    );
  });

  it("shows a plan step by its title in the nested-call path of an error", () => {
    const out = render([
      {
        type: "tool_call_update",
        tool_call_id: "c",
        name: "create_plan",
        status: "start",
        parent_id: null,
        depth: 0,
      },
      {
        type: "tool_call_update",
        tool_call_id: "c/facts",
        name: "plan_step",
        status: "start",
        title: "Collect facts",
        parent_id: "c",
        depth: 1,
      },
      {
        type: "tool_call_update",
        tool_call_id: "c/facts",
        name: "plan_step",
        status: "end",
        result: "no sources",
        is_error: true,
        duration_ms: 5,
        parent_id: "c",
        depth: 1,
      },
      {
        type: "tool_call_update",
        tool_call_id: "c",
        name: "create_plan",
        status: "end",
        result: "plan finished with a failed step",
        duration_ms: 9,
        parent_id: null,
        depth: 0,
      },
    ]);
    expect(out).toContain(
      "  ✓ create_plan (9 ms, 1 nested call, 1 failed)\n    ✗ create_plan › Collect facts (5 ms): no sources\n",
    );
  });
});

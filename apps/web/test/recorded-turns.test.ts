import { applyFrames } from "@agentwire-chat/client";
import { describe, expect, it } from "vitest";
import { emptyThread, type ThreadView, type TurnView } from "../src/state/thread-view.js";
import { phaseOf } from "../src/ui/agent-status.js";
import { recorded, recordedFrames, recordedScenarios } from "./recorded-frames.js";
import { shape } from "./shape.js";

/** What the reducer must show once a recorded turn has been applied whole. */
const finalViews: Record<string, (view: ThreadView, turn: TurnView) => void> = {
  "plain-answer": (_view, turn) => {
    expect(shape(turn)).toEqual(["Hello there!"]);
    expect(turn.usage).toMatchObject({ input_tokens: 12, output_tokens: 3, llm_calls: 1 });
    expect(turn.errors).toEqual([]);
  },
  "tool-call": (_view, turn) => {
    expect(shape(turn)).toEqual([
      "Let me look.",
      { card: "read_file#call_1", status: "complete", depth: 0, children: [] },
      "It says: buy milk.",
    ]);
    expect(turn.usage).toMatchObject({ llm_calls: 2, tool_calls: 1 });
  },
  "parallel-subtasks": (_view, turn) => {
    // Ended subtasks keep their result, not their text (it is not shown twice).
    expect(shape(turn)).toEqual([
      "Splitting.",
      { card: "run_subtask#sub_a", title: "Part A", status: "complete", depth: 0, children: [] },
      { card: "run_subtask#sub_b", title: "Part B", status: "complete", depth: 0, children: [] },
      "final: result-A | result-B",
    ]);
    expect([turn.cards.sub_a?.resultPreview, turn.cards.sub_b?.resultPreview]).toEqual([
      "result-A",
      "result-B",
    ]);
    expect(turn.usage).toMatchObject({ llm_calls: 4, subtasks: 2 });
  },
  "ask-user": (_view, turn) => {
    expect(shape(turn)).toEqual([
      "One question first.",
      { card: "ask_user#ask_1", status: "complete", depth: 0, children: [] },
      "Painting it blue.",
    ]);
    expect(turn.questions).toEqual([{ toolCallId: "ask_1", question: "Which colour?", resolved: true }]);
    expect(turn.cards.ask_1?.resultPreview).toBe("blue");
  },
  "stop-mid-stream": (_view, turn) => {
    expect(shape(turn)).toEqual(["Once upon a time"]);
    expect(turn.stopped).toBe(true);
    expect(turn.errors).toEqual([]);
  },
  "budget-exceeded": (_view, turn) => {
    expect(shape(turn)).toEqual([
      "Looking it up.",
      { card: "read_file#call_1", status: "complete", depth: 0, children: [] },
    ]);
    expect(turn.budget).toEqual({ reason: "llm_calls", limit: 1, observed: 2 });
  },
  "provider-error": (_view, turn) => {
    expect(shape(turn)).toEqual(["Partial "]);
    // The reason replaces the generic "turn ended: error" of the final row that came first.
    expect(turn.errors).toEqual(["provider_error: upstream overloaded"]);
    expect(turn.stopped).toBe(false);
  },
};

describe("the reducer on turns recorded from the server", () => {
  it("has an expected final view for every recorded scenario", () => {
    expect(recordedScenarios()).toEqual(Object.keys(finalViews).sort());
  });

  it.each(Object.keys(finalViews))("%s: one finished turn with the right view", (scenario) => {
    const { frames } = recorded(scenario);
    const view = applyFrames(emptyThread(), frames);
    expect(view.threadId).toBe("th_1");
    const last = frames.at(-1);
    expect(view.lastSeq).toBe(last && "seq" in last ? last.seq : undefined);
    expect(view.pending).toEqual([]);
    expect(view.turns).toHaveLength(1);
    const turn = view.turns[0]!;
    expect(turn.user?.id).toBe("m_1");
    expect(turn.running).toBe(false);
    expect(turn.state).toBe("idle");
    finalViews[scenario]?.(view, turn);
  });

  it("shows both parallel subtasks running with their own text before either ends", () => {
    // seq 13: each subtask has streamed its whole text, neither has ended.
    const turn = applyFrames(emptyThread(), recordedFrames("parallel-subtasks", 13)).turns[0]!;
    expect(turn.state).toBe("executing");
    expect(turn.stateDetail).toBe("Part A, Part B");
    expect(shape(turn)).toEqual([
      "Splitting.",
      { card: "run_subtask#sub_a", title: "Part A", status: "running", depth: 0, children: ["result-A"] },
      { card: "run_subtask#sub_b", title: "Part B", status: "running", depth: 0, children: ["result-B"] },
    ]);
  });

  it("waits on the user with the question open until the answer's frames come", () => {
    const { sent } = recorded("ask-user");
    const answer = sent.find((s) => s.command === "answer");
    const turn = applyFrames(emptyThread(), recordedFrames("ask-user", answer?.after_seq)).turns[0]!;
    expect(turn.running).toBe(true);
    expect(phaseOf(turn)).toBe("waiting_user");
    expect(turn.questions).toEqual([{ toolCallId: "ask_1", question: "Which colour?", resolved: false }]);
    expect(turn.cards.ask_1?.status).toBe("running");
  });

  it("replays a recorded turn the same whether its frames come at once or one by one", () => {
    for (const scenario of recordedScenarios()) {
      const frames = recorded(scenario).frames;
      const stepwise = frames.reduce((view, f) => applyFrames(view, [f]), emptyThread());
      expect(shape(stepwise.turns[0]!), scenario).toEqual(
        shape(applyFrames(emptyThread(), frames).turns[0]!),
      );
    }
  });
});

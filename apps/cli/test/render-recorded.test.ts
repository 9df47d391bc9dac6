import { describe, expect, it } from "vitest";
import { type RenderOptions, renderFrame } from "../src/chat/render-frame.js";
import { statusLines } from "../src/chat/status-lines.js";
import { initialTurnState, runningRootCalls } from "../src/chat/turn-state.js";
import { recordedFrames, recordedScenarios } from "./recorded-frames.js";

const plain: RenderOptions = { verbose: false, live: false };
const terminal: RenderOptions = { verbose: true, live: true };

/** A recorded turn rendered frame by frame, every frame arriving at local time 0. */
function renderRecorded(scenario: string, options: RenderOptions) {
  const state = initialTurnState(0);
  const out = recordedFrames(scenario)
    .map((f) => renderFrame(f, state, options, 0))
    .join("");
  return { out, state };
}

const readFile = 'read_file {"path":"notes.txt"}';

/** The whole output of each recorded turn when stdout is not a terminal (no status area). */
const expected: Record<string, string> = {
  "plain-answer": [
    "· thread th_1",
    "Hello there!",
    "· 12 in / 3 out tokens, 1 model call, 0 tool calls",
    "",
  ].join("\n"),
  "tool-call": [
    "· thread th_1",
    "Let me look.",
    `  ▸ ${readFile}`,
    `  ✓ ${readFile} (1 ms)`,
    "It says: buy milk.",
    "· 850 in / 27 out tokens, 2 model calls, 1 tool call",
    "",
  ].join("\n"),
  "parallel-subtasks": [
    "· thread th_1",
    "Splitting.",
    "  ▸ Part A",
    "  ▸ Part B",
    "  ✓ Part A (1 ms)",
    "  ✓ Part B (1 ms)",
    "final: result-A | result-B",
    "· 780 in / 60 out tokens, 4 model calls, 0 tool calls, 2 subtasks",
    "",
  ].join("\n"),
  "ask-user": [
    "· thread th_1",
    "One question first.",
    "? Which colour?",
    "Painting it blue.",
    "· 430 in / 21 out tokens, 2 model calls, 1 tool call",
    "",
  ].join("\n"),
  "stop-mid-stream": [
    "· thread th_1",
    "Once upon a time",
    "■ stopped",
    // The provider never reported the cut stream's tokens.
    "· tokens not reported (stopped mid-answer), 1 model call, 0 tool calls",
    "",
  ].join("\n"),
  "budget-exceeded": [
    "· thread th_1",
    "Looking it up.",
    `  ▸ ${readFile}`,
    `  ✓ ${readFile} (1 ms)`,
    "! budget exceeded: llm_calls (limit 1, reached 2)",
    "· 100 in / 10 out tokens, 1 model call, 1 tool call",
    "",
  ].join("\n"),
  "provider-error": [
    "· thread th_1",
    "Partial ",
    "! provider_error: upstream overloaded",
    "· tokens not reported, 1 model call, 0 tool calls",
    "",
  ].join("\n"),
};

describe("the CLI renderer on turns recorded from the server", () => {
  it("has an expected rendering for every recorded scenario", () => {
    expect(recordedScenarios()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.keys(expected))("%s: renders every frame, showing the key lines", (scenario) => {
    const { out, state } = renderRecorded(scenario, plain);
    expect(out).toBe(expected[scenario]);
    // Only a turn that ended with an error frame counts as failed (the exit code follows it).
    expect(state.failed).toBe(scenario === "provider-error");
    expect([...state.calls.values()].every((c) => c.ended)).toBe(true);
  });

  it.each(Object.keys(expected))("%s: on a terminal, the same lines but the start lines", (scenario) => {
    const { out, state } = renderRecorded(scenario, terminal);
    const withoutResults = out
      .split("\n")
      .filter((l) => !l.startsWith("    "))
      .join("\n");
    const startLines = (expected[scenario] as string)
      .split("\n")
      .filter((l) => !l.startsWith("  ▸ "))
      .join("\n");
    expect(withoutResults).toBe(startLines);
    // Once the turn has ended nothing is left running: the status area is back to one line.
    expect(runningRootCalls(state)).toEqual([]);
    expect(statusLines(state, 0, 80)).toHaveLength(1);
  });

  it("shows both parallel subtasks in the status area while they run, each with its latest text", () => {
    const state = initialTurnState(0);
    // Up to the first subtask's end: both subtasks have streamed their text, neither has ended (cut
    // there, not at a seq, which moves when the server sends a frame more, as turn_started did).
    const frames = recordedFrames("parallel-subtasks");
    const firstEnd = frames.findIndex((f) => f.type === "tool_call_update" && f.status === "end");
    for (const f of frames.slice(0, firstEnd)) renderFrame(f, state, terminal, 0);
    const lines = statusLines(state, 0, 80);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("Part A");
    expect(lines[0]).toContain("“result-A”");
    expect(lines[1]).toContain("Part B");
    expect(lines[1]).toContain("“result-B”");
  });

  it("shows the results of calls and subtasks under their finish lines when verbose", () => {
    expect(renderRecorded("parallel-subtasks", terminal).out).toContain(
      "  ✓ Part A (1 ms)\n    result-A\n  ✓ Part B (1 ms)\n    result-B\n",
    );
    expect(renderRecorded("tool-call", terminal).out).toContain(
      `  ✓ ${readFile} (1 ms)\n    {"path":"notes.txt","bytes":9,"content":"buy milk\\n"}\n`,
    );
  });
});

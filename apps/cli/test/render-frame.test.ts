import type { ServerFrame } from "@agentwire/protocol";
import { describe, expect, it } from "vitest";
import { initialRenderState, renderFrame } from "../src/commands/render-frame.js";

const render = (frames: ServerFrame[]) => {
  const state = initialRenderState();
  return frames.map((f) => renderFrame(f, state)).join("");
};
const tool = (f: Partial<ServerFrame & { type: "tool_call_update" }>) =>
  ({ type: "tool_call_update", parent_id: null, depth: 0, ...f }) as ServerFrame;

describe("renderFrame", () => {
  it("streams root text and hides nested text", () => {
    expect(
      render([
        { type: "chunk", content: "Hel", parent_id: null, depth: 0 },
        { type: "chunk", content: "secret", parent_id: "s", depth: 1 },
        { type: "chunk", content: "lo", parent_id: null, depth: 0 },
      ]),
    ).toBe("Hello");
  });

  it("shows root tool calls indented and collapses a subtask's nested calls into a count", () => {
    const out = render([
      { type: "chunk", content: "Plan:", parent_id: null, depth: 0 },
      tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Research" }),
      tool({ tool_call_id: "a", name: "web_fetch", status: "start", parent_id: "s1", depth: 1 }),
      tool({ tool_call_id: "s2", name: "run_subtask", status: "start", parent_id: "s1", depth: 1 }),
      tool({ tool_call_id: "b", name: "read_file", status: "start", parent_id: "s2", depth: 2 }),
      tool({ tool_call_id: "s1", name: "run_subtask", status: "end", duration_ms: 12 }),
      tool({ tool_call_id: "r", name: "read_file", status: "start", args: { path: "x" } }),
      tool({
        tool_call_id: "r",
        name: "read_file",
        status: "end",
        is_error: true,
        result: "not found",
        duration_ms: 1,
      }),
    ]);
    expect(out).toBe(
      'Plan:\n  ▸ run_subtask Research\n  ✓ run_subtask (12 ms, 3 nested calls)\n  ▸ read_file {"path":"x"}\n  ✗ read_file (1 ms): not found\n',
    );
  });

  it("names budget breaches and errors", () => {
    expect(render([{ type: "budget_exceeded", reason: "llm_calls", limit: 2, observed: 3 }])).toBe(
      "! budget exceeded: llm_calls (limit 2, reached 3)\n",
    );
  });
});

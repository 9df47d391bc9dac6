import type { ScratchpadItem, ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { renderFrame } from "../src/chat/render-frame.js";
import { initialTurnState } from "../src/chat/turn-state.js";

const item = (over: Partial<ScratchpadItem>): ScratchpadItem => ({
  id: "s1",
  kind: "task",
  title: "Collect the logs",
  status: "active",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...over,
});

const patch = (items: ScratchpadItem[]) =>
  ({ type: "scratchpad_patch", thread_id: "t", seq: 3, items }) as ServerFrame;

describe("renderFrame: scratchpad_patch", () => {
  it("prints one line per changed item, with its status when closed, on a line of its own", () => {
    const state = initialTurnState(0);
    const options = { verbose: false, live: true };
    const text = renderFrame(
      { type: "chunk", content: "Noting", parent_id: null, depth: 0 } as ServerFrame,
      state,
      options,
      0,
    );
    const out = renderFrame(
      patch([
        item({ id: "s1", status: "resolved" }),
        item({ id: "s2", kind: "question", title: "Which region?", details: "not shown" }),
        item({ id: "s3", kind: "idea", title: "Cache it", status: "discarded" }),
      ]),
      state,
      options,
      0,
    );
    expect(text + out).toBe(
      "Noting\n· scratchpad\n  ✓ s1 task: Collect the logs (resolved)\n  • s2 question: Which region?\n  ✗ s3 idea: Cache it (discarded)\n",
    );
    expect(state.atLineStart).toBe(true);
  });

  it("keeps control characters and long titles out of the terminal", () => {
    const out = renderFrame(
      patch([item({ title: `a\u001b[2Jb${"x".repeat(300)}` })]),
      initialTurnState(0),
      { verbose: false, live: false },
      0,
    );
    expect(out).not.toContain("\u001b");
    expect(out).toMatch(/^· scratchpad\n {2}• s1 task: abx+…\n$/);
    expect(out.length).toBeLessThan(150);
  });

  it("prints nothing for an empty patch", () => {
    expect(renderFrame(patch([]), initialTurnState(0), { verbose: false, live: false }, 0)).toBe("");
  });

  it("says when the user cleared the scratchpad", () => {
    const cleared = { ...patch([]), cleared: true } as ServerFrame;
    expect(renderFrame(cleared, initialTurnState(0), { verbose: false, live: false }, 0)).toBe(
      "· scratchpad cleared\n",
    );
  });
});

import type { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { type RenderOptions, renderFrame } from "../src/chat/render-frame.js";
import { statusLines } from "../src/chat/status-lines.js";
import { initialTurnState, type TurnState } from "../src/chat/turn-state.js";

const plain: RenderOptions = { verbose: false, live: false };

/** Renders frames in order; each may carry the local time (ms) it arrived at. */
const render = (
  frames: (ServerFrame | [ServerFrame, number])[],
  options = plain,
  state = initialTurnState(0),
) =>
  frames
    .map((f) =>
      Array.isArray(f) ? renderFrame(f[0], state, options, f[1]) : renderFrame(f, state, options, 0),
    )
    .join("");
const tool = (f: Partial<ServerFrame & { type: "tool_call_update" }>) =>
  ({ type: "tool_call_update", parent_id: null, depth: 0, ...f }) as ServerFrame;
const chunk = (content: string, parent_id: string | null = null, depth = 0) =>
  ({ type: "chunk", content, parent_id, depth }) as ServerFrame;

/** A usage frame of 5 in / 7 out tokens, 1 model call and 1 tool call. */
const usageFrame = {
  type: "usage",
  input_tokens: 5,
  output_tokens: 7,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0,
  cost_known: false,
  llm_calls: 1,
  tool_calls: 1,
  subtasks: 0,
} as ServerFrame;

describe("renderFrame", () => {
  it("streams root text and keeps nested text out of it", () => {
    expect(render([chunk("Hel"), chunk("secret", "s", 1), chunk("lo")])).toBe("Hello");
  });

  it("removes control characters from the model's text (no escape sequence reaches the terminal)", () => {
    expect(render([chunk("a\u001b[2Jb\r\nc\u0007")])).toBe("ab\nc");
  });

  it("names each call on its finish line and folds a subtask's nested calls into a count", () => {
    const out = render([
      chunk("Plan:"),
      tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Research" }),
      tool({ tool_call_id: "a", name: "web_fetch", status: "start", parent_id: "s1", depth: 1 }),
      tool({
        tool_call_id: "s2",
        name: "run_subtask",
        status: "start",
        parent_id: "s1",
        depth: 1,
        title: "Deep",
      }),
      tool({ tool_call_id: "b", name: "read_file", status: "start", parent_id: "s2", depth: 2 }),
      tool({ tool_call_id: "b", name: "read_file", status: "end", parent_id: "s2", depth: 2, result: "x" }),
      tool({ tool_call_id: "s1", name: "run_subtask", status: "end", duration_ms: 12, result: "found it" }),
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
      'Plan:\n  ▸ Research\n  ✓ Research (12 ms, 3 nested calls)\n  ▸ read_file {"path":"x"}\n  ✗ read_file {"path":"x"} (1 ms): not found\n',
    );
  });

  it("leaves start lines to the status area on a terminal", () => {
    const out = render(
      [
        tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Part A" }),
        tool({ tool_call_id: "s1", name: "run_subtask", status: "end", duration_ms: 20, result: "A" }),
      ],
      { verbose: false, live: true },
    );
    expect(out).toBe("  ✓ Part A (20 ms)\n");
  });

  it("times a call by the longer of the server's duration and the wait between its frames", () => {
    // A call resumed after the user answered carries the resumed part only (0 ms here).
    const out = render([
      [tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Ask" }), 1000],
      [tool({ tool_call_id: "s1", name: "run_subtask", status: "end", duration_ms: 0, result: "ok" }), 4500],
    ]);
    expect(out).toContain("  ✓ Ask (3500 ms)\n");
    expect(
      render([tool({ tool_call_id: "x", name: "read_file", status: "end", duration_ms: 12345.6 })]),
    ).toBe("  ✓ read_file (12.3 s)\n");
  });

  it("shows subtask results, nested ones indented by depth, with --verbose", () => {
    const out = render(
      [
        tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Outer" }),
        tool({
          tool_call_id: "s2",
          name: "run_subtask",
          status: "start",
          parent_id: "s1",
          depth: 1,
          title: "Inner",
        }),
        tool({
          tool_call_id: "s2",
          name: "run_subtask",
          status: "end",
          parent_id: "s1",
          depth: 1,
          result: "inner says hi",
          duration_ms: 3,
        }),
        tool({
          tool_call_id: "s1",
          name: "run_subtask",
          status: "end",
          result: "line 1\nline 2",
          duration_ms: 5,
        }),
      ],
      { verbose: true, live: true },
    );
    expect(out).toBe(
      "    ✓ Outer › Inner (3 ms)\n      inner says hi\n  ✓ Outer (5 ms, 1 nested call)\n    line 1\n    line 2\n",
    );
  });

  it("shows an ask_user call only through its question, once, without its arguments", () => {
    const out = render([
      tool({ tool_call_id: "q", name: "ask_user", status: "start", args: { question: "Colour?" } }),
      { type: "question", tool_call_id: "q", question: "Colour?" },
      tool({ tool_call_id: "q", name: "ask_user", status: "end", result: "blue", duration_ms: 0 }),
    ]);
    expect(out).toBe("? Colour?\n");
    // Cancelled by a stop: the failure shows, still without the question's JSON.
    const cancelled = render([
      tool({ tool_call_id: "q", name: "ask_user", status: "start", args: { question: "Colour?" } }),
      tool({
        tool_call_id: "q",
        name: "ask_user",
        status: "end",
        is_error: true,
        result: "cancelled",
        duration_ms: 3,
      }),
    ]);
    expect(cancelled).toBe("  ✗ ask_user (3 ms): cancelled\n");
  });

  it("shows a refused nested call under its root call's line, by its place in the tree, counted", () => {
    const out = render([
      tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Outer" }),
      tool({
        tool_call_id: "s2",
        name: "run_subtask",
        status: "start",
        parent_id: "s1",
        depth: 1,
        title: "Inner",
      }),
      tool({
        tool_call_id: "s2",
        name: "run_subtask",
        status: "end",
        parent_id: "s1",
        depth: 1,
        is_error: true,
        result: "run_subtask is not available: the maximum subtask depth (1) is reached",
        duration_ms: 0,
      }),
      tool({ tool_call_id: "s1", name: "run_subtask", status: "end", result: "went on", duration_ms: 7 }),
    ]);
    // The parent's line first, marked; the refused call under it, on its path.
    expect(out).toBe(
      "  ▸ Outer\n" +
        "  ✓ Outer (7 ms, 1 nested call, 1 refused)\n" +
        "    ⊘ Outer › Inner (0 ms): run_subtask is not available: the maximum subtask depth (1) is reached\n",
    );
  });

  it("wraps a long error line at word boundaries under its own indent", () => {
    const reason = "the maximum subtask depth (1) is reached, so this call never started a subtask at all";
    const out = render(
      [
        tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Outer" }),
        tool({
          tool_call_id: "s2",
          name: "run_subtask",
          status: "start",
          parent_id: "s1",
          depth: 1,
          title: "Inner",
        }),
        tool({
          tool_call_id: "s2",
          name: "run_subtask",
          status: "end",
          parent_id: "s1",
          depth: 1,
          is_error: true,
          result: `run_subtask is not available: ${reason}`,
          duration_ms: 0,
        }),
        tool({ tool_call_id: "s1", name: "run_subtask", status: "end", result: "ok", duration_ms: 7 }),
      ],
      { ...plain, columns: 60 },
    );
    const rows = out.trimEnd().split("\n").slice(2);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect([...row].length).toBeLessThan(60);
    expect(rows.slice(1).every((row) => row.startsWith("      "))).toBe(true);
    // Only whole words: joined again, the rows give the message back.
    expect(rows.map((row) => row.trim()).join(" ")).toBe(
      `⊘ Outer › Inner (0 ms): run_subtask is not available: ${reason}`,
    );
  });

  it("names budget breaches and errors, and counts in good grammar", () => {
    expect(render([{ type: "budget_exceeded", reason: "llm_calls", limit: 2, observed: 3 }])).toBe(
      "! budget exceeded: llm_calls (limit 2, reached 3)\n",
    );
    expect(render([usageFrame])).toBe("· 5 in / 7 out tokens, 1 model call, 1 tool call\n");
  });

  it("prints a usage frame's spend warning under its line (a thread's limit has no reset)", () => {
    const daily = { limit: "user_daily", limit_usd: 5, spent_usd: 4.1, resets_at: Date.UTC(2026, 10, 29) };
    expect(render([{ ...usageFrame, spend_warning: daily } as ServerFrame])).toBe(
      "· 5 in / 7 out tokens, 1 model call, 1 tool call\n" +
        "! spend: $4.10 of the $5.00 daily limit used (resets 2026-11-29T00:00:00Z)\n",
    );
    const thread = { limit: "thread", limit_usd: 1, spent_usd: 0.9, resets_at: null };
    expect(render([{ ...usageFrame, spend_warning: thread } as ServerFrame])).toContain(
      "! spend: $0.90 of the $1.00 thread limit used\n",
    );
  });

  it("does not claim 0 tokens for a turn stopped after text streamed (the provider never reported them)", () => {
    const zero = { ...usageFrame, input_tokens: 0, output_tokens: 0 } as ServerFrame;
    const text = { type: "chunk", content: "Half", depth: 0 } as ServerFrame;
    const stopped = { type: "generation_stopped" } as ServerFrame;
    expect(render([text, stopped, zero])).toBe(
      "Half\n■ stopped\n· tokens not reported (stopped mid-answer), 1 model call, 0 tool calls, 1 subtask\n",
    );
    // Stopped before any text, interrupted, or a provider that reports nothing: still not "0 in / 0 out".
    expect(render([stopped, zero])).toContain("· tokens not reported, 1 model call");
    expect(render([text, zero])).toContain("· tokens not reported, 1 model call");
    // No model call made: nothing to report, and zero is the truth.
    expect(render([{ ...zero, llm_calls: 0 } as ServerFrame])).toContain(
      "· 0 in / 0 out tokens, 0 model calls",
    );
  });
});

describe("an interrupted turn", () => {
  const finalRow = (nodes: unknown[]) =>
    ({
      type: "message",
      message: {
        id: "m",
        thread_id: "t",
        role: "assistant",
        content: "",
        status: "interrupted",
        created_at: "2026-01-01T00:00:00.000Z",
        execution_tree: { version: 1, nodes },
      },
    }) as ServerFrame;
  const cut = (id: string, title: string, text: string) => ({
    id,
    parent_id: null,
    name: "run_subtask",
    title,
    is_error: true,
    status: "interrupted",
    text,
    duration_ms: 1840,
  });
  const started = [
    tool({ tool_call_id: "s1", name: "run_subtask", status: "start", title: "Part A" }),
    tool({ tool_call_id: "s2", name: "run_subtask", status: "start", title: "Part B" }),
    chunk("part A: working", "s1", 1),
  ];

  it("after a crash: the calls that never ended draw interrupted with the server's time, never ✓", () => {
    const state = initialTurnState(0);
    const out = render(
      [
        ...started,
        finalRow([cut("s1", "Part A", "part A: working"), cut("s2", "Part B", "part B: working")]),
      ],
      plain,
      state,
    );
    expect(out).toBe(
      "  ▸ Part A\n  ▸ Part B\n  ↯ Part A (1840 ms): interrupted\n  ↯ Part B (1840 ms): interrupted\n",
    );
    expect(out).not.toContain("✓");
    // The status area no longer shows them running.
    expect(statusLines(state, 5000, 80).join("\n")).not.toContain("Part A");
  });

  it("with --verbose, the text each had streamed is under its line", () => {
    const out = render([...started, finalRow([cut("s1", "Part A", "part A: working")])], {
      verbose: true,
      live: false,
    });
    expect(out).toContain("  ↯ Part A (1840 ms): interrupted\n    part A: working\n");
  });

  it("a call already shown ended (cancelled by a shutdown) is not drawn twice", () => {
    const out = render([
      started[0] as ServerFrame,
      tool({
        tool_call_id: "s1",
        name: "run_subtask",
        status: "end",
        is_error: true,
        result: 'subtask "Part A" cancelled',
      }),
      finalRow([cut("s1", "Part A", "")]),
    ]);
    expect(out.split("\n").filter((l) => l.includes("Part A"))).toHaveLength(2);
    expect(out).not.toContain("↯");
  });
});

describe("statusLines", () => {
  const running = (state: TurnState) => {
    render(
      [
        [tool({ tool_call_id: "a", name: "run_subtask", status: "start", title: "Part A" }), 0],
        [tool({ tool_call_id: "b", name: "run_subtask", status: "start", title: "Part B" }), 500],
        [tool({ tool_call_id: "n", name: "web_fetch", status: "start", parent_id: "a", depth: 1 }), 600],
        [chunk("Reading page 2 of 3", "b", 1), 700],
      ],
      { verbose: false, live: true },
      state,
    );
  };

  it("lists every running call at once, with its time and what happens inside it", () => {
    const state = initialTurnState(0);
    running(state);
    expect(statusLines(state, 2000, 120).map((l) => l.slice(2))).toEqual([
      "Part A · 2.0 s · web_fetch",
      "Part B · 1.5 s · “Reading page 2 of 3”",
    ]);
  });

  it("says queued while the server holds the turn back, then thinking once it starts", () => {
    const state = initialTurnState(0);
    const stateFrame = (s: "queued" | "thinking") => ({ type: "agent_state", state: s }) as ServerFrame;
    expect(render([stateFrame("queued")], plain, state)).toBe("");
    expect(statusLines(state, 500, 120)[0]?.slice(2)).toBe("queued · 0.5 s");
    render([stateFrame("thinking")], plain, state);
    expect(statusLines(state, 900, 120)[0]?.slice(2)).toBe("thinking · 0.9 s");
  });

  it("says what the turn does when no call runs, and fits each line in the terminal", () => {
    const state = initialTurnState(0);
    expect(statusLines(state, 1234, 120)[0]?.slice(2)).toBe("thinking · 1.2 s");
    running(state);
    for (const line of statusLines(state, 2000, 20)) expect([...line].length).toBeLessThanOrEqual(19);
  });
});

import { describe, expect, test, vi } from "vitest";
import { z } from "zod";
import { TurnBudget } from "../../src/budget/turn-budget.js";
import {
  type BudgetLimits,
  defineTool,
  type LoopEvent,
  ok,
  runSubtaskTool,
  type Tool,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { echoTool, runLoop, toolUpdates } from "./helpers.js";

const breaches = (events: LoopEvent[]) => events.filter((e) => e.type === "budget_exceeded");

/** Every start has exactly one end. */
function expectClosed(events: LoopEvent[]) {
  const updates = toolUpdates(events);
  const starts = updates
    .filter((e) => e.status === "start")
    .map((e) => e.tool_call_id)
    .sort();
  const ends = updates
    .filter((e) => e.status === "end")
    .map((e) => e.tool_call_id)
    .sort();
  expect(ends).toEqual(starts);
}

async function breach(
  limits: Partial<BudgetLimits>,
  script: ScriptedStep[] | ((call: number) => ScriptedStep),
  tools: Tool[] = [echoTool],
  clock?: () => number,
) {
  const provider = new ScriptedProvider(Array.isArray(script) ? script : (_r, call) => script(call));
  const run = await runLoop(provider, tools, { limits, budget: clock ? { now: clock } : {} });
  expect(breaches(run.events)).toHaveLength(1);
  expect(run.result.status).toBe("budget_exceeded");
  expectClosed(run.events);
  return { ...run, provider, breach: breaches(run.events)[0] };
}

const loopForever = (call: number): ScriptedStep => ({
  text: `step ${call + 1}`,
  toolCalls: [{ name: "echo", args: { value: "x".repeat(100) } }],
});

describe("TurnBudget", () => {
  test("llm_calls: the call past the limit is never made", async () => {
    const { breach: b, provider, result } = await breach({ MAX_TOTAL_LLM_CALLS: 3 }, loopForever);
    expect(b).toEqual({ type: "budget_exceeded", reason: "llm_calls", limit: 3, observed: 4 });
    expect(provider.calls).toBe(3);
    expect(result.text).toBe("step 3");
    expect(result.budget).toEqual({ reason: "llm_calls", limit: 3, observed: 4 });
  });

  test("tool_calls: the dispatch past the limit does not run", async () => {
    let ran = 0;
    const counted = defineTool({
      name: "counted",
      description: "counts",
      args: z.object({}),
      permissionClass: "safe",
      parallelSafe: false,
      execute: async () => {
        ran += 1;
        return ok("done");
      },
    });
    const { breach: b, provider } = await breach(
      { MAX_TOTAL_TOOL_CALLS: 2 },
      [{ toolCalls: [{ name: "counted" }, { name: "counted" }, { name: "counted" }] }],
      [counted],
    );
    expect(b).toMatchObject({ reason: "tool_calls", limit: 2, observed: 3 });
    expect(ran).toBe(2);
    expect(provider.calls).toBe(1);
  });

  test("subtasks: the spawn past the limit does not start a child", async () => {
    const { breach: b, provider } = await breach(
      { MAX_TOTAL_SUBTASKS: 2 },
      (call) =>
        call === 0
          ? {
              toolCalls: ["a", "b", "c"].map((t) => ({
                name: "run_subtask",
                args: { title: t, instructions: t },
              })),
            }
          : { text: "child answer" },
      [runSubtaskTool],
    );
    expect(b).toMatchObject({ reason: "subtasks", limit: 2, observed: 3 });
    expect(
      provider.requests.some((r) => r.messages[0]?.role === "user" && r.messages[0].content === "c"),
    ).toBe(false);
  });

  test("tokens: the usage that crosses the limit stops the turn", async () => {
    const { breach: b, provider } = await breach({ MAX_TOTAL_TOKENS: 250 }, (call) => ({
      ...loopForever(call),
      usage: { inputTokens: 90, outputTokens: 10 },
    }));
    expect(b).toMatchObject({ reason: "tokens", limit: 250, observed: 300 });
    expect(provider.calls).toBe(3);
  });

  test("bytes: tool result bytes past the limit stop the turn", async () => {
    const { breach: b, provider } = await breach({ MAX_TOTAL_TOOL_RESULT_BYTES: 250 }, loopForever);
    expect(b).toMatchObject({ reason: "bytes", limit: 250, observed: 300 });
    expect(provider.calls).toBe(3);
  });

  test("wall_clock: checked before every LLM call with the turn's clock", async () => {
    let now = 0;
    const tick = defineTool({
      name: "tick",
      description: "advances the clock",
      args: z.object({}),
      permissionClass: "safe",
      execute: async () => {
        now += 1000;
        return ok("tick");
      },
    });
    const { breach: b, provider } = await breach(
      { MAX_WALL_CLOCK_MS: 1500 },
      () => ({ toolCalls: [{ name: "tick" }] }),
      [tick],
      () => now,
    );
    expect(b).toMatchObject({ reason: "wall_clock", limit: 1500, observed: 2000 });
    expect(provider.calls).toBe(2);
  });

  test("wall_clock: the timer aborts a tool that would wait forever", async () => {
    let sawAbort = false;
    const stuck = defineTool({
      name: "stuck",
      description: "waits for its signal",
      args: z.object({}),
      permissionClass: "safe",
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve(ok("late"));
          });
        }),
    });
    const provider = new ScriptedProvider([{ text: "working", toolCalls: [{ name: "stuck" }] }]);
    const run = await runLoop(provider, [stuck], {
      limits: { MAX_WALL_CLOCK_MS: 30 },
      budget: { wallClockTimer: true },
    });
    expect(sawAbort).toBe(true);
    expect(breaches(run.events)).toHaveLength(1);
    expect(breaches(run.events)[0]).toMatchObject({ reason: "wall_clock", limit: 30 });
    expect(run.result).toMatchObject({ status: "budget_exceeded", text: "working" });
    expectClosed(run.events);
  });

  test("wall_clock: an hour or a month is one timer, firing once at the limit (Node caps a timer at ~24.8 days)", () => {
    vi.useFakeTimers();
    // Counted by hand rather than vi.spyOn: a spy on a faked global outlived useRealTimers when test
    // files share a worker (isolate: false), leaving the next file a setTimeout that never fires.
    const fakeSetTimeout = globalThis.setTimeout;
    const armed = { calls: 0 };
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      armed.calls += 1;
      return fakeSetTimeout(...args);
    }) as typeof setTimeout;
    try {
      const hour = new TurnBudget({ MAX_WALL_CLOCK_MS: 3_600_000 });
      const month = new TurnBudget({ MAX_WALL_CLOCK_MS: 31 * 86_400_000 });
      expect(armed.calls).toBe(2);
      vi.advanceTimersByTime(100);
      expect(armed.calls).toBe(2);
      vi.advanceTimersByTime(3_600_000 - 100);
      expect(hour.signal.aborted).toBe(false);
      expect(armed.calls).toBe(2);
      vi.advanceTimersByTime(1);
      expect(hour.breach).toMatchObject({ reason: "wall_clock", limit: 3_600_000 });
      // The month's timer waits the longest delay Node honours, then re-arms for the rest, once.
      vi.advanceTimersByTime(31 * 86_400_000 - 3_600_001);
      expect(month.signal.aborted).toBe(false);
      expect(armed.calls).toBe(3);
      vi.advanceTimersByTime(1);
      expect(month.breach).toMatchObject({ reason: "wall_clock", limit: 31 * 86_400_000 });
    } finally {
      globalThis.setTimeout = fakeSetTimeout;
      vi.useRealTimers();
    }
  });

  test("a breach deep in the tree stops every level and is reported once", async () => {
    let siblingAborted = false;
    const wait = defineTool({
      name: "wait",
      description: "waits for its signal",
      args: z.object({}),
      permissionClass: "safe",
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            siblingAborted = true;
            resolve(ok("aborted"));
          });
        }),
    });
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const first = r.messages[0];
      const task = first?.role === "user" ? String(first.content) : "";
      if (task === "hello") {
        return {
          text: "root partial",
          toolCalls: [
            { id: "deep", name: "run_subtask", args: { title: "deep", instructions: "deep" } },
            { id: "idle", name: "run_subtask", args: { title: "idle", instructions: "idle" } },
          ],
        };
      }
      if (task === "idle") return { toolCalls: [{ name: "wait" }] };
      if (task === "deep")
        return { toolCalls: [{ name: "run_subtask", args: { title: "deeper", instructions: "deeper" } }] };
      return { toolCalls: [{ name: "echo", args: { value: "again" } }] };
    });
    const run = await runLoop(provider, [echoTool, wait, runSubtaskTool], {
      limits: { MAX_TOTAL_LLM_CALLS: 8 },
    });
    expect(breaches(run.events)).toEqual([
      { type: "budget_exceeded", reason: "llm_calls", limit: 8, observed: 9 },
    ]);
    expect(run.result).toMatchObject({ status: "budget_exceeded", text: "root partial" });
    expect(siblingAborted).toBe(true);
    expect(provider.calls).toBe(8);
    expectClosed(run.events);
    const ends = toolUpdates(run.events).filter((e) => e.status === "end" && e.depth === 0);
    for (const end of ends) expect(end.is_error).toBe(true);
  });
});

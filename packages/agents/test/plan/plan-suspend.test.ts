import { describe, expect, test } from "vitest";
import {
  askUserTool,
  buildExecutionTree,
  createLoopContext,
  createPlanTool,
  drainLoop,
  type LoopEvent,
  type ProviderRequest,
  runAgentLoop,
  type SuspendedState,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { runLoop, toolUpdates } from "../loop/helpers.js";
import { isFirstTurn, isPlanner, memoryPlanStore, ofType, planAnswer, taskOf } from "./plan-helpers.js";

/** Stage 1 (parallel): a asks the user, b answers; stage 2: c builds on both. */
const plan = {
  goal: "g",
  stages: [
    {
      id: "s1",
      name: "S1",
      mode: "parallel",
      steps: [
        { id: "a", title: "Step A", instructions: "do A" },
        { id: "b", title: "Step B", instructions: "do B" },
      ],
    },
    {
      id: "s2",
      name: "S2",
      mode: "sequence",
      steps: [{ id: "c", title: "Step C", instructions: "do C", inputs: ["a", "b"] }],
    },
  ],
};

const lastTool = (r: ProviderRequest) => {
  const m = r.messages.at(-1);
  return m?.role === "tool" ? m.content : "?";
};

/** Root: create_plan, then "done: <its result>". `asking` steps call ask_user first, then report the answer. */
function script(asking: string[]) {
  return (r: ProviderRequest): ScriptedStep => {
    if (isPlanner(r)) return planAnswer(plan);
    const task = taskOf(r);
    if (task === "hello") {
      return isFirstTurn(r)
        ? { toolCalls: [{ id: "plan1", name: "create_plan", args: { objective: "o" } }] }
        : { text: `done: ${lastTool(r)}` };
    }
    const name = task.split("\n")[0] ?? "";
    const id = `ask_${name.slice(3)}`;
    if (asking.includes(name) && isFirstTurn(r)) {
      return { toolCalls: [{ id, name: "ask_user", args: { question: `${name}: which year?` } }] };
    }
    return { text: isFirstTurn(r) ? `result ${name}` : `result ${name} after ${lastTool(r)}` };
  };
}

/** Every node has exactly one start and one end across the runs. */
function expectClosedOnce(events: LoopEvent[]) {
  const count = new Map<string, string[]>();
  for (const e of toolUpdates(events)) {
    if (e.status === "start" || e.status === "end") {
      count.set(e.tool_call_id, [...(count.get(e.tool_call_id) ?? []), e.status]);
    }
  }
  for (const [id, statuses] of count) expect([id, statuses]).toEqual([id, ["start", "end"]]);
}

const resume = async (
  provider: ScriptedProvider,
  tools: Parameters<typeof runLoop>[1],
  state: SuspendedState,
  answer: string,
) => {
  const events: LoopEvent[] = [];
  const ctx = createLoopContext({}, { wallClockTimer: false });
  const result = await drainLoop(
    runAgentLoop({ provider, tools, ctx, from: { kind: "suspended", state, answer } }),
    (e) => {
      events.push(e);
    },
  );
  return { events, result };
};

describe("a plan step that asks the user", () => {
  test("suspends the whole turn; the answer resumes the step, the plan goes on, the model answers", async () => {
    const provider = new ScriptedProvider(script(["do A"]));
    const { store, plans, history } = memoryPlanStore();
    const tools = [createPlanTool({ store, newId: () => "p-1" }), askUserTool];
    const first = await runLoop(provider, tools);
    expect(first.result.status).toBe("waiting_user");
    const pending = first.result.pending as SuspendedState;
    const stored = JSON.parse(JSON.stringify(pending)) as SuspendedState;
    expect(stored).toEqual(pending);
    expect(stored.toolCallId).toBe("ask_A");
    expect(stored.suspension).toEqual({ kind: "question", question: "do A: which year?" });
    expect(stored.levels.map((l) => [l.depth, l.parentId, l.pendingCall.id, l.tool?.name])).toEqual([
      [0, null, "plan1", undefined],
      [1, "plan1", "plan1/a", "create_plan"],
      [2, "plan1/a", "ask_A", undefined],
    ]);
    expect(first.events.slice(-2)).toEqual([
      { type: "question", tool_call_id: "ask_A", question: "do A: which year?" },
      { type: "agent_state", state: "waiting_on_user" },
    ]);
    // B finished beside the waiting step; stage 2 did not start; the plan is still running.
    const firstEnds = toolUpdates(first.events).filter((e) => e.status === "end");
    expect(firstEnds.map((e) => e.tool_call_id)).toEqual(["plan1/b"]);
    expect(provider.requests.some((r) => taskOf(r).startsWith("do C"))).toBe(false);
    expect(plans.get("p-1")?.status).toBe("running");

    const second = await resume(provider, tools, stored, "1999");
    expect(second.result).toMatchObject({ status: "complete" });
    // The step's subtask got the answer; C got both results.
    const resumedA = provider.requests.find((r) => taskOf(r) === "do A" && !isFirstTurn(r));
    expect(lastTool(resumedA as ProviderRequest)).toBe("1999");
    const taskC = provider.requests.map(taskOf).find((t) => t.startsWith("do C")) ?? "";
    expect(taskC).toContain("result do A after 1999");
    expect(taskC).toContain("result do B");
    const summary = JSON.parse(lastTool(provider.requests.at(-1) as ProviderRequest));
    expect(summary).toMatchObject({ plan_id: "p-1", status: "complete" });
    expect(summary.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ["a", "ok"],
      ["b", "ok"],
      ["c", "ok"],
    ]);
    expect(second.result.text).toBe(`done: ${JSON.stringify(summary)}`);
    expect(plans.get("p-1")?.status).toBe("complete");
    expect(history.filter(([, s]) => s === "running")).toHaveLength(1);

    // Nesting exactly as without a pause; every node opened and closed once across both runs.
    const ends = toolUpdates(second.events).filter((e) => e.status === "end");
    expect(ends.map((e) => [e.tool_call_id, e.depth, e.parent_id])).toEqual([
      ["ask_A", 2, "plan1/a"],
      ["plan1/a", 1, "plan1"],
      ["plan1/c", 1, "plan1"],
      ["plan1", 0, null],
    ]);
    const all = [...first.events, ...second.events];
    expectClosedOnce(all);
    const tree = buildExecutionTree(all);
    expect(tree.nodes.find((n) => n.id === "plan1/a")).toMatchObject({ parent_id: "plan1" });
    expect(tree.nodes.find((n) => n.id === "plan1/c")).toMatchObject({ parent_id: "plan1", title: "Step C" });
    expect(tree.nodes.find((n) => n.id === "ask_A")).toMatchObject({
      parent_id: "plan1/a",
      result_preview: "1999",
    });
    // The resumed run counts the remaining step as a subtask of the turn.
    expect(second.result.usage.subtasks).toBe(1);
  });

  test("a later step that asks suspends again; the second answer finishes the plan", async () => {
    const provider = new ScriptedProvider(script(["do A", "do C"]));
    const tools = [createPlanTool({ newId: () => "p-1" }), askUserTool];
    const first = await runLoop(provider, tools);
    const second = await resume(provider, tools, first.result.pending as SuspendedState, "one");
    expect(second.result.status).toBe("waiting_user");
    const again = JSON.parse(JSON.stringify(second.result.pending)) as SuspendedState;
    expect(again.levels.map((l) => [l.depth, l.parentId, l.pendingCall.id])).toEqual([
      [0, null, "plan1"],
      [1, "plan1", "plan1/c"],
      [2, "plan1/c", "ask_C"],
    ]);
    expect(ofType(second.events, "question")).toEqual([
      { type: "question", tool_call_id: "ask_C", question: "do C: which year?" },
    ]);
    const third = await resume(provider, tools, again, "two");
    expect(third.result.status).toBe("complete");
    expect(third.result.text).toContain("result do C after two");
    expect(third.result.text).toContain("result do A after one");
    expectClosedOnce([...first.events, ...second.events, ...third.events]);
  });

  test("a second step asking in the same stage ends with an error; its ask_user node is closed", async () => {
    const provider = new ScriptedProvider(script(["do A", "do B"]));
    const tools = [createPlanTool(), askUserTool];
    const first = await runLoop(provider, tools);
    const pending = first.result.pending as SuspendedState;
    const waiting = pending.levels[1]?.pendingCall.id;
    const other = waiting === "plan1/a" ? "plan1/b" : "plan1/a";
    expect(ofType(first.events, "question")).toHaveLength(1);
    const otherEnd = toolUpdates(first.events).find((e) => e.tool_call_id === other && e.status === "end");
    expect(otherEnd).toMatchObject({ is_error: true, parent_id: "plan1", depth: 1 });
    expect(String(otherEnd?.result)).toContain("another question to the user was already pending");
    const otherAsk = other === "plan1/a" ? "ask_A" : "ask_B";
    expect(
      toolUpdates(first.events)
        .filter((e) => e.tool_call_id === otherAsk)
        .map((e) => e.status),
    ).toEqual(["start", "end"]);
    const second = await resume(provider, tools, pending, "x");
    expect(second.result.status).toBe("complete");
    // C's input failed, so it was skipped; the model reads it in the summary.
    expect(second.result.text).toContain('"status":"failed"');
    expect(second.result.text).toContain("did not succeed");
    expectClosedOnce([...first.events, ...second.events]);
  });
});

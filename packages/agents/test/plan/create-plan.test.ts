import { contentText } from "@agentwire-chat/protocol";
import { describe, expect, test } from "vitest";
import { buildExecutionTree, createPlanTool, type ProviderRequest } from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { deferred, echoTool, runLoop, toolUpdates } from "../loop/helpers.js";
import {
  isFirstTurn,
  isPlanner,
  isReviewer,
  meetTool,
  memoryPlanStore,
  ofType,
  planAnswer,
  taskOf,
  twoStagePlan,
} from "./plan-helpers.js";

const rootCall = (args: Record<string, unknown>): ScriptedStep => ({
  toolCalls: [{ id: "plan1", name: "create_plan", args: { objective: "a report", ...args } }],
});

/** Root: create_plan, then "done"; steps: meet at the gate (a, b), then answer "result <task>". */
function respond(planner: (r: ProviderRequest) => ScriptedStep, rootArgs: Record<string, unknown> = {}) {
  return (r: ProviderRequest): ScriptedStep => {
    if (isPlanner(r) || isReviewer(r)) return planner(r);
    const task = taskOf(r);
    if (task === "hello") return isFirstTurn(r) ? rootCall(rootArgs) : { text: "done" };
    if ((task === "do A" || task === "do B") && isFirstTurn(r)) return { toolCalls: [{ name: "meet" }] };
    return { text: `result ${task.split("\n")[0]}`, usage: { inputTokens: 10, outputTokens: 5 } };
  };
}

describe("create_plan auto_execute", () => {
  test("runs the stages in order, a parallel stage's steps at once, dependencies first, nested under the call", async () => {
    const provider = new ScriptedProvider(respond(() => planAnswer(twoStagePlan)));
    const tool = createPlanTool({ newId: () => "p-1" });
    const { events, result, records } = await runLoop(provider, [tool, meetTool(), echoTool]);
    expect(result).toMatchObject({ status: "complete", text: "done" });

    const created = ofType(events, "plan_created");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ tool_call_id: "plan1", execution_mode: "auto_execute" });
    expect(created[0]?.plan).toMatchObject({ id: "p-1", goal: "write the report" });

    // Each step is a node under the create_plan call at depth 1; its inner events are under it at depth 2.
    const steps = toolUpdates(events).filter((e) => e.name === "plan_step");
    expect(steps.filter((e) => e.status === "start").map((e) => e.title)).toEqual([
      "Step A",
      "Step B",
      "Step C",
      "Step D",
    ]);
    for (const e of steps) expect(e).toMatchObject({ parent_id: "plan1", depth: 1 });
    const meets = toolUpdates(events).filter((e) => e.name === "meet");
    expect(meets.map((e) => e.parent_id).sort()).toEqual(["plan1/a", "plan1/a", "plan1/b", "plan1/b"]);
    for (const e of meets) expect(e.depth).toBe(2);
    const tree = buildExecutionTree(events);
    expect(tree.nodes.find((n) => n.id === "plan1/c")).toMatchObject({ parent_id: "plan1", title: "Step C" });

    // C waited for A and got its result; D got B's and C's.
    const stepTasks = provider.requests.map(taskOf);
    const taskC = stepTasks.find((t) => t.startsWith("do C")) ?? "";
    expect(taskC).toContain("result do A");
    const taskD = stepTasks.find((t) => t.startsWith("do D")) ?? "";
    expect(taskD).toContain("result do B");
    expect(taskD).toContain("result do C");
    expect(stepTasks.indexOf(taskC)).toBeGreaterThan(stepTasks.lastIndexOf("do A"));

    // The model reads every step's outcome.
    const end = toolUpdates(events).find((e) => e.tool_call_id === "plan1" && e.status === "end");
    const summary = JSON.parse(String(end?.result));
    expect(summary).toMatchObject({ plan_id: "p-1", status: "complete" });
    expect(summary.steps.map((s: { id: string; status: string }) => `${s.id}:${s.status}`)).toEqual([
      "a:ok",
      "b:ok",
      "c:ok",
      "d:ok",
    ]);

    // The planner call is in the ledger and the usage, nested under the call; steps count as subtasks.
    const planner = records.find((r) => r.parentId === "plan1");
    expect(planner).toMatchObject({ depth: 1, inputTokens: 100, outputTokens: 50 });
    expect(result.usage.subtasks).toBe(4);
    expect(result.usage.llm_calls).toBe(records.length);
    expect(result.usage.input_tokens).toBe(100 + 4 * 10);
    provider.assertComplete();
  });

  test("a parallel stage never runs more than MAX_PARALLEL_PER_TURN steps at once", async () => {
    let inside = 0;
    let most = 0;
    const twoInside = deferred();
    const plan = {
      goal: "g",
      stages: [
        {
          id: "s",
          name: "S",
          mode: "parallel",
          steps: ["1", "2", "3"].map((id) => ({ id, title: `T${id}`, instructions: `do ${id}` })),
        },
      ],
    };
    const provider = new ScriptedProvider(async (r: ProviderRequest): Promise<ScriptedStep> => {
      if (isPlanner(r)) return planAnswer(plan);
      const task = taskOf(r);
      if (task === "hello") return isFirstTurn(r) ? rootCall({}) : { text: "done" };
      inside += 1;
      most = Math.max(most, inside);
      if (inside === 2) twoInside.resolve();
      // The first two wait for each other; a third let in beside them would be counted here.
      await twoInside.promise;
      inside -= 1;
      return { text: `r ${task}` };
    });
    const { result } = await runLoop(provider, [createPlanTool()], { limits: { MAX_PARALLEL_PER_TURN: 2 } });
    expect(result.status).toBe("complete");
    expect(most).toBeLessThanOrEqual(2);
    expect(provider.requests.filter((r) => taskOf(r).startsWith("do ")).length).toBe(3);
  });

  test("an invalid plan gets one repair round with the problems; a second invalid one is an error result", async () => {
    const bad = {
      goal: "g",
      stages: [
        {
          id: "s",
          name: "S",
          mode: "parallel",
          steps: [{ id: "x", title: "X", instructions: "do X", inputs: ["nope"], tools: ["rm_rf"] }],
        },
      ],
    };
    const planner = new ScriptedProvider(respond(() => planAnswer(bad)));
    const { events, result } = await runLoop(planner, [createPlanTool(), meetTool()]);
    expect(result).toMatchObject({ status: "complete", text: "done" });
    const plannerCalls = planner.requests.filter(isPlanner);
    expect(plannerCalls).toHaveLength(2);
    const repair = plannerCalls[1]?.messages.at(-1);
    const repairText = repair?.role === "user" ? contentText(repair.content) : "";
    expect(repairText).toContain('input "nope"');
    expect(repairText).toContain("rm_rf");
    const end = toolUpdates(events).find((e) => e.tool_call_id === "plan1" && e.status === "end");
    expect(end).toMatchObject({ is_error: true });
    expect(String(end?.result)).toContain("not valid");
    expect(ofType(events, "plan_created")).toHaveLength(0);

    let n = 0;
    const repaired = new ScriptedProvider(
      respond(() => (n++ === 0 ? { text: "no json here" } : planAnswer(twoStagePlan))),
    );
    const second = await runLoop(repaired, [createPlanTool(), meetTool()]);
    expect(ofType(second.events, "plan_created")).toHaveLength(1);
    expect(repaired.requests.filter(isPlanner)).toHaveLength(2);
  });
});

describe("create_plan agent_review", () => {
  test("a rejected plan is revised with the notes; the approved revision runs", async () => {
    const first = {
      goal: "g1",
      stages: [
        { id: "s", name: "S", mode: "sequence", steps: [{ id: "x", title: "X", instructions: "do X" }] },
      ],
    };
    let reviews = 0;
    const provider = new ScriptedProvider(
      respond(
        (r) => {
          if (isReviewer(r)) {
            reviews += 1;
            return reviews === 1
              ? { text: '{"verdict":"reject","notes":"split it in two stages"}' }
              : { text: '```json\n{"verdict":"approve","notes":"good"}\n```' };
          }
          return r.messages.length === 1 ? planAnswer(first) : planAnswer(twoStagePlan);
        },
        { execution_mode: "agent_review" },
      ),
    );
    const { events, result } = await runLoop(provider, [createPlanTool(), meetTool()]);
    expect(result).toMatchObject({ status: "complete", text: "done" });
    const verdicts = ofType(events, "plan_review");
    expect(verdicts.map((v) => [v.verdict, v.round])).toEqual([
      ["reject", 1],
      ["approve", 2],
    ]);
    expect(verdicts[0]).toMatchObject({ tool_call_id: "plan1", notes: "split it in two stages" });
    const revision = provider.requests.filter(isPlanner)[1]?.messages.at(-1);
    expect(revision?.role === "user" && contentText(revision.content)).toContain("split it in two stages");
    expect(ofType(events, "plan_created").map((e) => e.plan.goal)).toEqual(["g1", "write the report"]);
    expect(toolUpdates(events).filter((e) => e.name === "plan_step" && e.status === "end")).toHaveLength(4);
  });

  test("after two rejections the critique goes back to the model and nothing runs", async () => {
    const provider = new ScriptedProvider(
      respond(
        (r) =>
          isReviewer(r) ? { text: '{"verdict":"reject","notes":"too vague"}' } : planAnswer(twoStagePlan),
        { execution_mode: "agent_review" },
      ),
    );
    const { events } = await runLoop(provider, [createPlanTool(), meetTool()]);
    expect(ofType(events, "plan_review")).toHaveLength(2);
    expect(toolUpdates(events).filter((e) => e.name === "plan_step")).toHaveLength(0);
    const end = toolUpdates(events).find((e) => e.tool_call_id === "plan1" && e.status === "end");
    expect(end?.is_error).toBe(true);
    expect(JSON.parse(String(end?.result))).toMatchObject({ status: "rejected", notes: "too vague" });
  });
});

describe("create_plan draft_only", () => {
  test("stores the plan as pending_review, sends plan_ready_for_review and runs nothing", async () => {
    const { store, plans } = memoryPlanStore();
    const provider = new ScriptedProvider(
      respond(() => planAnswer(twoStagePlan), { execution_mode: "draft_only" }),
    );
    const { events, result } = await runLoop(provider, [createPlanTool({ store, newId: () => "p-9" })]);
    expect(result.text).toBe("done");
    expect(plans.get("p-9")).toMatchObject({ status: "pending_review", toolCallId: "plan1" });
    expect(ofType(events, "plan_ready_for_review")).toEqual([
      { type: "plan_ready_for_review", tool_call_id: "plan1", plan: plans.get("p-9")?.plan },
    ]);
    expect(toolUpdates(events).filter((e) => e.name === "plan_step")).toHaveLength(0);
    const end = toolUpdates(events).find((e) => e.tool_call_id === "plan1" && e.status === "end");
    expect(JSON.parse(String(end?.result))).toMatchObject({ status: "awaiting_user_review", plan_id: "p-9" });
  });

  test("the scope's default mode applies when the call names none", async () => {
    const { store, plans } = memoryPlanStore();
    const provider = new ScriptedProvider(respond(() => planAnswer(twoStagePlan)));
    await runLoop(provider, [createPlanTool({ store, defaultMode: "draft_only", newId: () => "p-2" })]);
    expect(plans.get("p-2")?.status).toBe("pending_review");
  });
});

describe("create_plan limits", () => {
  test("a budget breach inside a step stops the whole tree", async () => {
    const plan = {
      goal: "g",
      stages: [
        {
          id: "s1",
          name: "S1",
          mode: "sequence",
          steps: [
            { id: "x", title: "X", instructions: "do X" },
            { id: "y", title: "Y", instructions: "do Y" },
          ],
        },
      ],
    };
    const provider = new ScriptedProvider((r: ProviderRequest): ScriptedStep => {
      if (isPlanner(r)) return planAnswer(plan);
      const task = taskOf(r);
      if (task === "hello") return isFirstTurn(r) ? rootCall({}) : { text: "done" };
      return { toolCalls: [{ name: "echo", args: { value: "again" } }] };
    });
    // root 1 + planner 1 + step X's calls: the 5th call is refused.
    const { events, result } = await runLoop(provider, [createPlanTool(), echoTool], {
      limits: { MAX_TOTAL_LLM_CALLS: 4 },
    });
    expect(result.status).toBe("budget_exceeded");
    expect(ofType(events, "budget_exceeded")).toEqual([
      { type: "budget_exceeded", reason: "llm_calls", limit: 4, observed: 5 },
    ]);
    expect(provider.requests.some((r) => taskOf(r) === "do Y")).toBe(false);
    expect(provider.calls).toBe(4);
  });

  test("outside a loop the tool answers with an error", async () => {
    const tool = createPlanTool();
    const out = await tool.execute(
      { objective: "x" },
      { toolCallId: "c", depth: 0, parentId: null, signal: new AbortController().signal },
    );
    expect(out).toMatchObject({ type: "result", isError: true });
  });
});

import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  createPlanTool,
  defineTool,
  ok,
  type ProviderRequest,
  runSubtaskTool,
  type Tool,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { isPlanner, planAnswer } from "../plan/plan-helpers.js";
import { deferred, runLoop } from "./helpers.js";

/**
 * A leaf tool that counts how many of its calls run at once across the whole tree. Each call waits
 * on a gate that opens once `fill` calls are inside together, so the count reaches the most the
 * scheduler lets in at once (and a run that never gets `fill` in at once would not finish).
 */
function probe(fill: number) {
  const stats = { running: 0, max: 0, done: 0 };
  const full = deferred();
  const tool: Tool = defineTool({
    name: "probe",
    description: "probe",
    args: z.object({ tag: z.string() }),
    permissionClass: "safe",
    execute: async ({ tag }) => {
      stats.running += 1;
      stats.max = Math.max(stats.max, stats.running);
      if (stats.running >= fill) full.resolve();
      await full.promise;
      stats.running -= 1;
      stats.done += 1;
      return ok(tag);
    },
  });
  return { tool, stats };
}

const taskOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};
const answered = (r: ProviderRequest) => r.messages.at(-1)?.role === "tool";
const probes = (task: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: "probe", args: { tag: `${task}.${i}` } }));

/** The root runs three subtasks at once; each runs three probes at once. */
function fanOut(r: ProviderRequest): ScriptedStep {
  const task = taskOf(r);
  if (answered(r)) return { text: `done ${task}` };
  if (task === "hello") {
    return {
      toolCalls: ["A", "B", "C"].map((t) => ({ name: "run_subtask", args: { title: t, instructions: t } })),
    };
  }
  return { toolCalls: probes(task, 3) };
}

describe("MAX_PARALLEL_PER_TURN is tree-wide", () => {
  test("3 parallel subtasks × 3 parallel leaf calls never run more than the limit (4) at once, and finish", async () => {
    const { tool, stats } = probe(4);
    const provider = new ScriptedProvider(fanOut);
    const { result } = await runLoop(provider, [tool, runSubtaskTool], {
      limits: { MAX_PARALLEL_PER_TURN: 4 },
    });
    expect(result).toMatchObject({ status: "complete", text: "done hello" });
    expect(stats.done).toBe(9);
    expect(stats.max).toBe(4);
  });

  test("the same tree with a limit of 9 does run all nine leaf calls at once (the probe can see it)", async () => {
    const { tool, stats } = probe(9);
    const provider = new ScriptedProvider(fanOut);
    const { result } = await runLoop(provider, [tool, runSubtaskTool], {
      limits: { MAX_PARALLEL_PER_TURN: 9 },
    });
    expect(result.status).toBe("complete");
    expect(stats.max).toBe(9);
  });

  test("a chain of subtasks three deep finishes with a limit of 1 (a container lends its permit)", async () => {
    const { tool, stats } = probe(1);
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const task = taskOf(r);
      if (answered(r)) return { text: `${task} ok` };
      const next: Record<string, string> = { hello: "d1", d1: "d2", d2: "d3" };
      const child = next[task];
      return {
        // Each level beside its subtask runs two leaf calls in parallel, all under the one permit.
        toolCalls: [
          ...probes(task, 2),
          ...(child ? [{ name: "run_subtask", args: { title: child, instructions: child } }] : []),
        ],
      };
    });
    const { result, events } = await runLoop(provider, [tool, runSubtaskTool], {
      limits: { MAX_PARALLEL_PER_TURN: 1, MAX_DEPTH: 3 },
    });
    expect(result).toMatchObject({ status: "complete", text: "hello ok" });
    expect(stats.done).toBe(8);
    expect(stats.max).toBe(1);
    const depths = events.flatMap((e) =>
      e.type === "tool_call_update" && e.name === "run_subtask" ? [e.depth] : [],
    );
    expect(new Set(depths)).toEqual(new Set([0, 1, 2]));
  });

  test("a plan's parallel steps and their leaf calls share the same limit", async () => {
    const { tool, stats } = probe(2);
    const plan = {
      goal: "g",
      stages: [
        {
          id: "s",
          name: "S",
          mode: "parallel",
          steps: ["1", "2", "3"].map((id) => ({ id, title: `T${id}`, instructions: `step ${id}` })),
        },
      ],
    };
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const task = taskOf(r);
      if (isPlanner(r)) return planAnswer(plan);
      if (task === "hello") {
        return answered(r)
          ? { text: "plan done" }
          : { toolCalls: [{ id: "plan1", name: "create_plan", args: { objective: "g" } }] };
      }
      return answered(r) ? { text: `ok ${task}` } : { toolCalls: probes(task, 2) };
    });
    const { result } = await runLoop(provider, [tool, createPlanTool()], {
      limits: { MAX_PARALLEL_PER_TURN: 2 },
    });
    expect(result).toMatchObject({ status: "complete", text: "plan done" });
    expect(stats.done).toBe(6);
    expect(stats.max).toBe(2);
  });
});

import { describe, expect, test } from "vitest";
import {
  type Checkpoint,
  type CheckpointEvent,
  type CheckpointLevel,
  createLoopContext,
  createPlanTool,
  drainLoop,
  type LlmCallRecord,
  type LoopEvent,
  type ProviderRequest,
  runAgentLoop,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { echoTool, runLoop } from "../loop/helpers.js";
import { isPlanner, planAnswer, taskOf } from "./plan-helpers.js";

const plan = {
  goal: "one step",
  stages: [
    { id: "s", name: "S", mode: "sequence", steps: [{ id: "a", title: "Step A", instructions: "do A" }] },
  ],
};

/** Root → create_plan → done; the planner → the plan; step "do A" echoes once, then answers. */
function script(r: ProviderRequest): ScriptedStep {
  if (isPlanner(r)) return planAnswer(plan);
  const last = r.messages.at(-1);
  if (taskOf(r) === "do A") {
    return last?.role === "tool"
      ? { text: "did A" }
      : { toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] };
  }
  if (last?.role === "tool") return { text: "done" };
  return { toolCalls: [{ id: "cp1", name: "create_plan", args: { objective: "one step" } }] };
}

describe("a plan step's operation", () => {
  test("its calls record plan_step, the planner's planner, the root's turn; its checkpoints keep the operation", async () => {
    const { records, events } = await runLoop(new ScriptedProvider(script), [createPlanTool(), echoTool]);
    expect(records.map((r) => [r.parentId, r.operation])).toEqual([
      [null, "turn"],
      ["cp1", "planner"],
      ["cp1/a", "plan_step"],
      ["cp1/a", "plan_step"],
      [null, "turn"],
    ]);
    const stepLevels = events
      .filter((e): e is CheckpointEvent => e.type === "checkpoint")
      .map((e) => e.level)
      .filter((l) => l.parentId === "cp1/a");
    expect(stepLevels.length).toBeGreaterThan(0);
    for (const level of stepLevels) expect(level.operation).toBe("plan_step");
  });

  test("a level continued from a checkpoint records the operation it was saved with", async () => {
    const saved = (operation?: CheckpointLevel["operation"]): Checkpoint => ({
      version: 1,
      model: "gpt-4o",
      root: {
        depth: 0,
        parentId: null,
        systemPrompt: "sys",
        toolNames: null,
        messages: [{ role: "user", content: "do A" }],
        results: [],
        iterationsUsed: 0,
        maxIterations: 5,
        ...(operation && { operation }),
      },
    });
    const continued = async (checkpoint: Checkpoint) => {
      const records: LlmCallRecord[] = [];
      const ctx = createLoopContext({}, { wallClockTimer: false, onLlmCall: (r) => records.push(r) });
      const events: LoopEvent[] = [];
      await drainLoop(
        runAgentLoop({
          provider: new ScriptedProvider([{ text: "did A" }]),
          tools: [],
          ctx,
          from: { kind: "checkpoint", checkpoint },
        }),
        (e) => {
          events.push(e);
        },
      );
      return records.map((r) => r.operation);
    };
    expect(await continued(saved("plan_step"))).toEqual(["plan_step"]);
    // A checkpoint stored before levels kept their operation: the default of its depth.
    expect(await continued(saved())).toEqual(["turn"]);
  });
});

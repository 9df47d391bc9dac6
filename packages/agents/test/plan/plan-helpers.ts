import { contentText, type Plan, type PlanStatus } from "@agentwire-chat/protocol";
import { z } from "zod";
import { defineTool, type LoopEvent, ok, type PlanStore, type ProviderRequest } from "../../src/index.js";
import type { ScriptedStep } from "../../src/testing/index.js";
import { deferred } from "../loop/helpers.js";

/** Which kind of call a request is. */
export const isPlanner = (r: ProviderRequest) => r.systemPrompt.startsWith("You are a planner");
export const isReviewer = (r: ProviderRequest) => r.systemPrompt.startsWith("You review plans");
/** The instructions a level was started with (its first user message). */
export const taskOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};
export const isFirstTurn = (r: ProviderRequest) => r.messages.length === 1;

/** A planner answer holding `plan` in a json fence. */
export const planAnswer = (plan: unknown): ScriptedStep => ({
  text: `Here is the plan:\n\`\`\`json\n${JSON.stringify(plan)}\n\`\`\``,
  usage: { inputTokens: 100, outputTokens: 50 },
});

/** Two stages: a parallel one (a and b meet at a gate; c needs a), then d needing b and c. */
export const twoStagePlan = {
  goal: "write the report",
  stages: [
    {
      id: "gather",
      name: "Gather",
      mode: "parallel",
      steps: [
        { id: "a", title: "Step A", instructions: "do A" },
        { id: "b", title: "Step B", instructions: "do B" },
        { id: "c", title: "Step C", instructions: "do C", inputs: ["a"] },
      ],
    },
    {
      id: "write",
      name: "Write",
      mode: "sequence",
      steps: [{ id: "d", title: "Step D", instructions: "do D", inputs: ["b", "c"] }],
    },
  ],
};

/** A tool both parallel steps call: it returns only once both are inside it, so it proves they overlap. */
export function meetTool(expected = 2) {
  const all = deferred();
  let inside = 0;
  return defineTool({
    name: "meet",
    description: "waits for the other step",
    args: z.object({}),
    permissionClass: "safe",
    execute: async () => {
      inside += 1;
      if (inside === expected) all.resolve();
      await all.promise;
      return ok("met");
    },
  });
}

/** An in-memory PlanStore recording every write. */
export function memoryPlanStore() {
  const plans = new Map<string, { plan: Plan; status: PlanStatus; toolCallId: string }>();
  const history: [string, PlanStatus][] = [];
  const store: PlanStore = {
    async save(plan, meta) {
      plans.set(plan.id, { plan, status: meta.status, toolCallId: meta.toolCallId });
      history.push([plan.id, meta.status]);
    },
    async setStatus(planId, status) {
      const row = plans.get(planId);
      if (row) row.status = status;
      history.push([planId, status]);
    },
  };
  return { store, plans, history };
}

export const ofType = <T extends LoopEvent["type"]>(events: LoopEvent[], type: T) =>
  events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);

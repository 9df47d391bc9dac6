import { ExecutionTreeSnapshot } from "@agentwire-chat/protocol";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { buildExecutionTree, type ProviderRequest, runSubtaskTool } from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { echoTool, runLoop, toolUpdates } from "./helpers.js";

/** A random plan: per task, per turn, the calls to make (echo or a subtask with a fresh task). */
type Turn = { echoes: number; subtasks: number };
const planArb = fc.array(
  fc.array(fc.record({ echoes: fc.integer({ min: 0, max: 3 }), subtasks: fc.integer({ min: 0, max: 3 }) }), {
    maxLength: 3,
  }),
  {
    minLength: 1,
    maxLength: 12,
  },
);
const limitsArb = fc.record({
  MAX_DEPTH: fc.integer({ min: 1, max: 3 }),
  MAX_TOTAL_LLM_CALLS: fc.integer({ min: 1, max: 30 }),
  MAX_TOTAL_TOOL_CALLS: fc.integer({ min: 1, max: 40 }),
  MAX_TOTAL_SUBTASKS: fc.integer({ min: 0, max: 10 }).map((n) => Math.max(1, n)),
  MAX_PARALLEL_PER_TURN: fc.integer({ min: 1, max: 4 }),
  MAX_ITERATIONS_PER_LEVEL: fc.integer({ min: 1, max: 4 }),
});

describe("property: random scripted trees", () => {
  test("counters stay within budget, every start has one end, the tree matches the events", async () => {
    await fc.assert(
      fc.asyncProperty(planArb, limitsArb, async (plans, limits) => {
        let nextTask = 1;
        const respond = (r: ProviderRequest): ScriptedStep => {
          const first = r.messages[0];
          const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
          const index = task === "hello" ? 0 : Number(task.slice(5));
          const turn = r.messages.filter((m) => m.role === "assistant").length;
          const plan: Turn | undefined = plans[index % plans.length]?.[turn];
          if (!plan || plan.echoes + plan.subtasks === 0)
            return { text: `answer ${task}`, usage: { inputTokens: 3, outputTokens: 2 } };
          const calls = [
            ...Array.from({ length: plan.echoes }, (_, i) => ({
              name: "echo",
              args: { value: `${task}.${turn}.${i}` },
            })),
            ...Array.from({ length: plan.subtasks }, () => {
              const t = `task ${nextTask++}`;
              return { name: "run_subtask", args: { title: t, instructions: t } };
            }),
          ];
          return { text: `turn ${turn}`, toolCalls: calls, usage: { inputTokens: 3, outputTokens: 2 } };
        };
        const provider = new ScriptedProvider(respond);
        const run = await runLoop(provider, [echoTool, runSubtaskTool], { limits });
        const used = run.ctx.budget.used;
        // Counted actions are checked before they start: never past their limit.
        expect(used.llmCalls).toBeLessThanOrEqual(limits.MAX_TOTAL_LLM_CALLS);
        expect(used.toolCalls).toBeLessThanOrEqual(limits.MAX_TOTAL_TOOL_CALLS);
        expect(used.subtasks).toBeLessThanOrEqual(limits.MAX_TOTAL_SUBTASKS);
        expect(provider.calls).toBe(used.llmCalls);
        expect(run.result.usage.llm_calls).toBe(used.llmCalls);
        expect(run.result.usage.tool_calls).toBe(used.toolCalls);
        expect(run.result.usage.subtasks).toBe(used.subtasks);
        const breaches = run.events.filter((e) => e.type === "budget_exceeded");
        expect(breaches.length).toBe(run.result.status === "budget_exceeded" ? 1 : 0);
        const updates = toolUpdates(run.events);
        const starts = updates.filter((e) => e.status === "start");
        const ends = updates.filter((e) => e.status === "end");
        expect(ends.map((e) => e.tool_call_id).sort()).toEqual(starts.map((e) => e.tool_call_id).sort());
        expect(new Set(starts.map((e) => e.tool_call_id)).size).toBe(starts.length);
        for (const e of run.events) {
          if (e.type === "tool_call_update" || e.type === "chunk")
            expect(e.depth).toBeLessThanOrEqual(limits.MAX_DEPTH);
        }
        const tree = ExecutionTreeSnapshot.parse(buildExecutionTree(run.events));
        expect(tree.nodes.map((n) => n.id)).toEqual(starts.map((s) => s.tool_call_id));
        const ids = new Set(tree.nodes.map((n) => n.id));
        for (const node of tree.nodes) {
          const start = starts.find((s) => s.tool_call_id === node.id);
          expect(node.parent_id).toBe(start?.parent_id);
          if (node.parent_id !== null) expect(ids.has(node.parent_id)).toBe(true);
          const end = ends.find((s) => s.tool_call_id === node.id);
          expect(node.is_error ?? false).toBe(end?.is_error ?? false);
        }
      }),
      { numRuns: 150 },
    );
  });
});

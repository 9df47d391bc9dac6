import { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/scripted-provider.js";
import type { LoopEvent } from "../../src/turn/loop-event.js";
import { createBuildWorkflowTool } from "../../src/workflows/build-workflow-tool.js";
import { createDefaultNodeRegistry } from "../../src/workflows/create-default-node-registry.js";
import { validateWorkflow } from "../../src/workflows/validate-workflow.js";
import type { WorkflowGraph } from "../../src/workflows/workflow-graph.js";
import { runLoop, toolUpdates } from "../loop/helpers.js";
import { runTool } from "../tools/run-tool.js";

const registry = createDefaultNodeRegistry({
  providers: { resolve: () => ({ ok: false, message: "unused" }) },
});

const validGraph = {
  nodes: [
    { id: "in", type: "input.text" },
    { id: "llm", type: "llm.prompt", properties: { system: "Translate to French." } },
    { id: "out", type: "output.text" },
  ],
  edges: [
    { source: "in", source_port: "text", target: "llm", target_port: "prompt" },
    { source: "llm", source_port: "text", target: "out", target_port: "text" },
  ],
};
/** Missing the edge into out.text and using a port llm.prompt does not have. */
const invalidGraph = {
  nodes: validGraph.nodes,
  edges: [{ source: "in", source_port: "text", target: "llm", target_port: "question" }],
};
const fenced = (graph: unknown) =>
  `Here is the plan:\n\`\`\`json\n${JSON.stringify(graph, null, 2)}\n\`\`\`\n`;

/** The root calls build_workflow (id `bw`), the planner plays `planner`, then the root answers "done". */
const turn = (planner: ScriptedStep[]): ScriptedStep[] => [
  { toolCalls: [{ id: "bw", name: "build_workflow", args: { objective: "translate messages to French" } }] },
  ...planner,
  { text: "done" },
];

function setup(options: { maxRepairs?: number } = {}) {
  const saved: { graph: WorkflowGraph; objective: string }[] = [];
  const tool = createBuildWorkflowTool({
    registry,
    saveWorkflow: async (graph, objective) => {
      saved.push({ graph, objective });
      return { workflow_id: "wf-42" };
    },
    ...(options.maxRepairs !== undefined && { maxRepairs: options.maxRepairs }),
  });
  return { saved, tool };
}

/** The build_workflow call's end event. */
const toolEnd = (events: LoopEvent[]) =>
  toolUpdates(events).find((e) => e.tool_call_id === "bw" && e.status === "end");
const attempts = (events: LoopEvent[]) => toolUpdates(events).filter((e) => e.name === "plan_workflow");

describe("build_workflow", () => {
  it("is an editor_mutate tool taking an objective", () => {
    const { tool } = setup();
    expect(tool.name).toBe("build_workflow");
    expect(tool.permissionClass).toBe("editor_mutate");
    expect(tool.validate({ objective: "  " }).ok).toBe(false);
  });

  it("repairs an invalid first answer and stores the valid graph; the planner calls count in the turn", async () => {
    const { saved, tool } = setup();
    const provider = new ScriptedProvider(
      turn([
        {
          text: ["Here is the plan:\n```json\n", JSON.stringify(invalidGraph), "\n```"],
          usage: { inputTokens: 10, outputTokens: 5 },
        },
        { text: fenced(validGraph), usage: { inputTokens: 20, outputTokens: 7 } },
      ]),
    );
    const run = await runLoop(provider, [tool]);
    provider.assertComplete();
    expect(run.result).toMatchObject({ status: "complete", text: "done" });
    const end = toolEnd(run.events);
    expect(end?.is_error ?? false).toBe(false);
    const out = JSON.parse(String(end?.result)) as { workflow_id: string; graph: WorkflowGraph };
    expect(out.workflow_id).toBe("wf-42");
    expect(validateWorkflow(out.graph, registry).ok).toBe(true);
    expect(saved).toEqual([{ graph: out.graph, objective: "translate messages to French" }]);

    // Same model as the turn, no tools; the catalogue lists the registry's types; the repair names node and port.
    const [first, second] = provider.requests.slice(1, 3);
    expect(first?.model).toBe("gpt-4o");
    expect(first?.tools).toEqual([]);
    expect(first?.systemPrompt).toContain("### llm.prompt");
    expect(first?.systemPrompt).toContain('prompt {"type":"string"}');
    expect(second?.messages).toHaveLength(3);
    const repair = second?.messages[2];
    const repairText = repair?.role === "user" ? String(repair.content) : "";
    expect(repairText).toContain('node "llm" port "question": llm.prompt has no input "question"');
    expect(repairText).toContain('node "out" port "text": required input is not connected');

    // Accounting: both planner calls in the ledger under the tool call, in the usage, and their tokens.
    expect(run.records.map((r) => [r.depth, r.parentId])).toEqual([
      [0, null],
      [1, "bw"],
      [1, "bw"],
      [0, null],
    ]);
    expect(run.result.usage.llm_calls).toBe(4);
    expect(run.ctx.budget.used.llmCalls).toBe(4);
    expect(run.ctx.budget.used.tokens).toBe(42);

    // Progress is nested under the tool call at depth + 1, as protocol frames, inside its start and end.
    const nested = run.events.filter(
      (e) => (e.type === "chunk" || e.type === "tool_call_update") && e.parent_id === "bw",
    );
    for (const e of nested)
      expect(ServerFrame.safeParse({ ...e, seq: 1, thread_id: "t" }).success).toBe(true);
    expect(nested.every((e) => "depth" in e && e.depth === 1)).toBe(true);
    expect(attempts(run.events).map((e) => [e.tool_call_id, e.status, e.is_error])).toEqual([
      ["bw:plan-1", "start", undefined],
      ["bw:plan-1", "end", true],
      ["bw:plan-2", "start", undefined],
      ["bw:plan-2", "end", false],
    ]);
    const streamed = nested.flatMap((e) => (e.type === "chunk" ? [e.content] : [])).join("");
    expect(streamed).toContain('"source_port": "text"');
    const startAt = run.events.findIndex((e) => e.type === "tool_call_update" && e.tool_call_id === "bw");
    expect(run.events.indexOf(nested[0] as LoopEvent)).toBeGreaterThan(startAt);
    expect(run.events.indexOf(nested.at(-1) as LoopEvent)).toBeLessThan(run.events.indexOf(end as LoopEvent));
  });

  it("fails cleanly after maxRepairs, naming the remaining errors, and saves nothing", async () => {
    const { saved, tool } = setup();
    const provider = new ScriptedProvider(
      turn([{ text: fenced(invalidGraph) }, { text: "no json here, sorry" }, { text: fenced(invalidGraph) }]),
    );
    const run = await runLoop(provider, [tool]);
    provider.assertComplete();
    expect(saved).toEqual([]);
    const end = toolEnd(run.events);
    expect(end?.is_error).toBe(true);
    const output = JSON.parse(String(end?.result)) as { error: string; errors: unknown[] };
    expect(output.error).toMatch(
      /^build_workflow: no valid workflow after 2 repair rounds: node "llm" port "question"/,
    );
    expect(output.errors).toContainEqual({
      node_id: "out",
      port: "text",
      message: "required input is not connected and has no property",
    });
    expect(provider.requests[3]?.messages.at(-1)).toMatchObject({
      content: expect.stringContaining("no JSON object found"),
    });
    expect(run.records.filter((r) => r.parentId === "bw")).toHaveLength(3);
  });

  it("stops when the turn's MAX_TOTAL_LLM_CALLS refuses a repair call; every attempt started is ended", async () => {
    const { saved, tool } = setup();
    const provider = new ScriptedProvider(turn([{ text: fenced(invalidGraph) }]).slice(0, 2));
    const run = await runLoop(provider, [tool], { limits: { MAX_TOTAL_LLM_CALLS: 2 } });
    expect(provider.calls).toBe(2);
    expect(saved).toEqual([]);
    expect(run.result.status).toBe("budget_exceeded");
    expect(run.events.find((e) => e.type === "budget_exceeded")).toMatchObject({ reason: "llm_calls" });
    expect(attempts(run.events).map((e) => [e.tool_call_id, e.status, e.is_error])).toEqual([
      ["bw:plan-1", "start", undefined],
      ["bw:plan-1", "end", true],
      ["bw:plan-2", "start", undefined],
      ["bw:plan-2", "end", true],
    ]);
    // The refused call never started: no ledger row for it.
    expect(run.records).toHaveLength(2);
    // The attempt's end precedes the tool call's own end.
    const events = toolUpdates(run.events);
    const attemptEnd = events.findIndex((e) => e.tool_call_id === "bw:plan-2" && e.status === "end");
    expect(attemptEnd).toBeLessThan(events.findIndex((e) => e.tool_call_id === "bw" && e.status === "end"));
  });

  it("a provider error ends its attempt as an error, is in the ledger, and the turn goes on", async () => {
    const { tool } = setup();
    const provider = new ScriptedProvider(turn([{ error: "overloaded" }]));
    const run = await runLoop(provider, [tool]);
    provider.assertComplete();
    expect(run.result).toMatchObject({ status: "complete", text: "done" });
    expect(attempts(run.events).map((e) => [e.status, e.is_error, e.result])).toEqual([
      ["start", undefined, undefined],
      ["end", true, "model error: overloaded"],
    ]);
    const end = toolEnd(run.events);
    expect(end?.is_error).toBe(true);
    expect(JSON.parse(String(end?.result))).toEqual({
      error: "build_workflow: model error: overloaded",
      errors: [],
    });
    expect(run.records[1]).toMatchObject({ depth: 1, parentId: "bw", error: "overloaded" });
  });

  it("a stop during planning ends the attempt before the tool call", async () => {
    const { tool } = setup();
    const controller = new AbortController();
    const provider = new ScriptedProvider(turn([{ text: "thinking", hold: "until-aborted" }]));
    const run = await runLoop(provider, [tool], {
      params: { signal: controller.signal },
      onEvent: (e) => {
        if (e.type === "tool_call_update" && e.tool_call_id === "bw:plan-1") controller.abort();
      },
    });
    expect(run.result.status).toBe("interrupted");
    const updates = toolUpdates(run.events).map((e) => [e.tool_call_id, e.status, e.is_error]);
    expect(updates).toEqual([
      ["bw", "start", undefined],
      ["bw:plan-1", "start", undefined],
      ["bw:plan-1", "end", true],
      ["bw", "end", true],
    ]);
  });

  it("outside an agent loop it refuses with a clear error", async () => {
    const { saved, tool } = setup();
    const outcome = await runTool(tool, { objective: "x" });
    expect(outcome).toMatchObject({ type: "result", isError: true });
    expect((outcome as { output: { error: string } }).output.error).toBe(
      "build_workflow: it runs only inside an agent turn (no model call to plan with)",
    );
    expect(saved).toEqual([]);
  });
});

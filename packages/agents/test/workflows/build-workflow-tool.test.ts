import { ServerFrame } from "@agentwire/protocol";
import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "../../src/testing/scripted-provider.js";
import { createBuildWorkflowTool } from "../../src/workflows/build-workflow-tool.js";
import { createDefaultNodeRegistry } from "../../src/workflows/create-default-node-registry.js";
import type { PlannerEvent } from "../../src/workflows/plan-workflow.js";
import { validateWorkflow } from "../../src/workflows/validate-workflow.js";
import type { WorkflowGraph } from "../../src/workflows/workflow-graph.js";
import { okOutput, runTool } from "../tools/run-tool.js";

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

function setup(
  steps: ConstructorParameters<typeof ScriptedProvider>[0],
  options: { maxRepairs?: number; budget?: number } = {},
) {
  const provider = new ScriptedProvider(steps);
  const saved: { graph: WorkflowGraph; objective: string }[] = [];
  const events: PlannerEvent[] = [];
  let calls = 0;
  const tool = createBuildWorkflowTool({
    registry,
    provider,
    model: "turn-model",
    saveWorkflow: async (graph, objective) => {
      saved.push({ graph, objective });
      return { workflow_id: "wf-42" };
    },
    ...(options.maxRepairs !== undefined && { maxRepairs: options.maxRepairs }),
    countLlmCall: () => ++calls <= (options.budget ?? Number.POSITIVE_INFINITY),
    onEvent: (e) => events.push(e),
  });
  return { provider, saved, events, tool };
}

describe("build_workflow", () => {
  it("is an editor_mutate tool taking an objective", () => {
    const { tool } = setup([]);
    expect(tool.name).toBe("build_workflow");
    expect(tool.permissionClass).toBe("editor_mutate");
    expect(tool.validate({ objective: "  " }).ok).toBe(false);
  });

  it("repairs an invalid first answer and stores the valid graph", async () => {
    const { provider, saved, events, tool } = setup([
      { text: ["Here is the plan:\n```json\n", JSON.stringify(invalidGraph), "\n```"] },
      { text: fenced(validGraph) },
    ]);
    const out = okOutput<{ workflow_id: string; graph: WorkflowGraph }>(
      await runTool(tool, { objective: "translate messages to French" }),
    );
    provider.assertComplete();
    expect(out.workflow_id).toBe("wf-42");
    expect(validateWorkflow(out.graph, registry).ok).toBe(true);
    expect(saved).toEqual([{ graph: out.graph, objective: "translate messages to French" }]);

    // Same model as the turn; the catalogue lists the registry's types; the repair names node and port.
    const [first, second] = provider.requests;
    expect(first?.model).toBe("turn-model");
    expect(first?.systemPrompt).toContain("### llm.prompt");
    expect(first?.systemPrompt).toContain('prompt {"type":"string"}');
    expect(second?.messages).toHaveLength(3);
    const repair = second?.messages[2];
    expect(repair?.role).toBe("user");
    const repairText = repair?.role === "user" ? String(repair.content) : "";
    expect(repairText).toContain('node "llm" port "question": llm.prompt has no input "question"');
    expect(repairText).toContain('node "out" port "text": required input is not connected');

    // Progress is nested under the tool call at depth + 1, as protocol frames.
    for (const e of events) expect(ServerFrame.safeParse(e).success).toBe(true);
    expect(events.every((e) => e.parent_id === "call_1" && e.depth === 1)).toBe(true);
    const updates = events.flatMap((e) =>
      e.type === "tool_call_update" ? [[e.tool_call_id, e.status, e.is_error]] : [],
    );
    expect(updates).toEqual([
      ["call_1:plan-1", "start", undefined],
      ["call_1:plan-1", "end", true],
      ["call_1:plan-2", "start", undefined],
      ["call_1:plan-2", "end", false],
    ]);
    const streamed = events.flatMap((e) => (e.type === "chunk" ? [e.content] : [])).join("");
    expect(streamed).toContain('"source_port": "text"');
  });

  it("fails cleanly after maxRepairs, naming the remaining errors, and saves nothing", async () => {
    const { provider, saved, tool } = setup([
      { text: fenced(invalidGraph) },
      { text: "no json here, sorry" },
      { text: fenced(invalidGraph) },
    ]);
    const outcome = await runTool(tool, { objective: "x" });
    provider.assertComplete();
    expect(provider.calls).toBe(3);
    expect(saved).toEqual([]);
    expect(outcome).toMatchObject({ type: "result", isError: true });
    const output = (outcome as { output: { error: string; errors: unknown[] } }).output;
    expect(output.error).toMatch(
      /^build_workflow: no valid workflow after 2 repair rounds: node "llm" port "question"/,
    );
    expect(output.errors).toContainEqual({
      node_id: "out",
      port: "text",
      message: "required input is not connected and has no property",
    });
    expect(provider.requests[2]?.messages.at(-1)).toMatchObject({
      content: expect.stringContaining("no JSON object found"),
    });
  });

  it("stops when the turn budget refuses another LLM call", async () => {
    const { provider, tool } = setup([{ text: fenced(invalidGraph) }], { budget: 1 });
    const outcome = await runTool(tool, { objective: "x" });
    expect(provider.calls).toBe(1);
    expect((outcome as { output: { error: string } }).output.error).toMatch(
      /^build_workflow: the turn's LLM call budget is exhausted: node "llm"/,
    );
  });

  it("reports a model error as an error result", async () => {
    const { tool } = setup([{ error: "overloaded" }]);
    const outcome = await runTool(tool, { objective: "x" });
    expect(outcome).toEqual({
      type: "result",
      isError: true,
      output: { error: "build_workflow: model error: overloaded", errors: [] },
    });
  });
});

import { validateWorkflow } from "@agentwire/agents";
import type { ScriptedStep } from "@agentwire/agents/testing";
import type { ServerFrame } from "@agentwire/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { expectWellFormedTurn, isDone } from "../chat/chat-harness.js";
import { type RouteTestServer, startRouteServer, translateGraph } from "./route-harness.js";

let server: RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);

const invalidGraph = {
  nodes: [
    { id: "in", type: "input.text" },
    { id: "out", type: "output.text" },
  ],
  edges: [],
};
const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;

/** The agent calls build_workflow; the planner answers invalid, then valid; the agent wraps up. */
const script: ScriptedStep[] = [
  {
    toolCalls: [
      { id: "call_bw", name: "build_workflow", args: { objective: "Translate my messages to French" } },
    ],
  },
  { text: ["Here is a plan:\n", fence(invalidGraph)] },
  { text: fence(translateGraph) },
  { text: "Your workflow is ready." },
];

describe("build_workflow in editor context", () => {
  it("plans with the turn's model, repairs once, stores a valid graph in the editor's workflow, nested progress reaches the client", async () => {
    server = await startRouteServer(script);
    await server.repos.users.ensure("local");
    const editing = await server.repos.workflows.create("local", "Draft", { nodes: [], edges: [] });
    const client = await server.connect();
    client.command("chat_message", {
      content: "Build me a translator",
      chat_context: { kind: "editor", workflow_id: editing.id },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);

    expect(server.provider.requests[0]?.tools.map((t) => t.name)).toContain("build_workflow");
    // The planner ran on the turn's provider and model, and its second call carried the repair prompt.
    expect(server.provider.requests).toHaveLength(4);
    expect(server.provider.requests[1]?.model).toBe("scripted-1");
    expect(server.provider.requests[1]?.tools).toEqual([]);
    expect(JSON.stringify(server.provider.requests[2]?.messages.at(-1))).toContain(
      "required input is not connected",
    );

    const calls = ofType(frames, "tool_call_update");
    const root = calls.filter((c) => c.tool_call_id === "call_bw");
    expect(root.map((c) => c.status)).toEqual(["start", "end"]);
    expect(root[1]?.is_error ?? false).toBe(false);
    const attempts = calls.filter((c) => c.name === "plan_workflow");
    expect(attempts.map((c) => [c.status, c.is_error ?? false])).toEqual([
      ["start", false],
      ["end", true],
      ["start", false],
      ["end", false],
    ]);
    expect(attempts.every((c) => c.parent_id === "call_bw" && c.depth === 1)).toBe(true);
    const nestedChunks = ofType(frames, "chunk").filter((c) => c.parent_id === "call_bw");
    expect(nestedChunks.length).toBeGreaterThan(0);
    expect(nestedChunks.every((c) => c.depth === 1)).toBe(true);
    // Nested progress sits between the tool call's start and end.
    const startAt = frames.indexOf(root[0] as ServerFrame);
    const endAt = frames.indexOf(root[1] as ServerFrame);
    expect(frames.indexOf(attempts[0] as ServerFrame)).toBeGreaterThan(startAt);
    expect(frames.indexOf(attempts[3] as ServerFrame)).toBeLessThan(endAt);

    const stored = await server.repos.workflows.get("local", editing.id);
    const valid = validateWorkflow(stored?.graph, server.registry);
    expect(valid.ok).toBe(true);
    expect(stored?.graph).toMatchObject({
      nodes: translateGraph.nodes.map((n) => ({ id: n.id, type: n.type })),
    });
    expect(await server.repos.workflows.list("local")).toHaveLength(1);
    expect(ofType(frames, "message").at(-1)?.message).toMatchObject({
      content: "Your workflow is ready.",
      status: "complete",
    });
  });

  it("saves into a new workflow when the editor's id is not one of the user's", async () => {
    server = await startRouteServer(script);
    const client = await server.connect();
    client.command("chat_message", {
      content: "Build me a translator",
      chat_context: { kind: "editor", workflow_id: "unsaved-draft" },
    });
    const frames = await client.collectUntil(isDone);
    const end = ofType(frames, "tool_call_update").find(
      (c) => c.tool_call_id === "call_bw" && c.status === "end",
    );
    const [created] = await server.repos.workflows.list("local");
    expect(created?.name).toBe("Translate my messages to French");
    expect(JSON.stringify(end?.result)).toContain(created?.id as string);
    expect(validateWorkflow(created?.graph, server.registry).ok).toBe(true);
  });

  it("is absent from the thread toolbelt", async () => {
    server = await startRouteServer([{ text: "hi" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "Build me a translator" });
    await client.collectUntil(isDone);
    const names = server.provider.requests[0]?.tools.map((t) => t.name) ?? [];
    expect(names.length).toBeGreaterThan(0);
    expect(names).not.toContain("build_workflow");
  });
});

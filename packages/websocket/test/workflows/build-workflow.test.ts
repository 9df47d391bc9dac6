import { validateWorkflow } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, threadOf } from "../chat/turn-helpers.js";

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

  it("counts the planner calls in the turn: usage, ledger rows (workflow_planner) under the call, and the stored tree", async () => {
    server = await startRouteServer(script);
    const client = await server.connect();
    client.command("chat_message", {
      content: "Build me a translator",
      chat_context: { kind: "editor", workflow_id: "draft" },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);

    // root, planner, repair, root: all four in the live usage and in the stored turn.
    expect(ofType(frames, "usage")[0]).toMatchObject({ llm_calls: 4, tool_calls: 1 });
    const turn = await server.repos.turns.latest("local", threadOf(frames));
    expect(turn?.usage).toMatchObject({ llm_calls: 4 });
    const calls = await server.repos.llmCalls.forTurn("local", turn?.id ?? "");
    expect(calls.map((c) => [c.depth, c.parentId, c.operation])).toEqual([
      [0, null, "turn"],
      [1, "call_bw", "workflow_planner"],
      [1, "call_bw", "workflow_planner"],
      [0, null, "turn"],
    ]);
    expect(calls.every((c) => c.model === "scripted-1" && c.error === null)).toBe(true);

    // The stored tree holds the plan_workflow cards the client saw live, with their outcomes.
    const live = ofType(frames, "tool_call_update").filter(
      (c) => c.name === "plan_workflow" && c.status === "end",
    );
    const nodes = finalRow(frames).execution_tree?.nodes ?? [];
    const stored = nodes.filter((n) => n.name === "plan_workflow");
    expect(stored.map((n) => [n.id, n.parent_id, n.is_error ?? false])).toEqual(
      live.map((c) => [c.tool_call_id, "call_bw", c.is_error ?? false]),
    );
    expect(stored.map((n) => n.id)).toEqual(["call_bw:plan-1", "call_bw:plan-2"]);
    expect(stored[1]?.title).toBe("Repairing the workflow (round 1)");
  });

  it("a provider error in the planner ends its card as an error and the turn goes on", async () => {
    server = await startRouteServer([
      script[0] as ScriptedStep,
      { error: "overloaded" },
      { text: "The planner is unavailable." },
    ]);
    const client = await server.connect();
    client.command("chat_message", {
      content: "Build me a translator",
      chat_context: { kind: "editor", workflow_id: "draft" },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    const attempt = ofType(frames, "tool_call_update").filter((c) => c.name === "plan_workflow");
    expect(attempt.map((c) => [c.status, c.is_error ?? false])).toEqual([
      ["start", false],
      ["end", true],
    ]);
    expect(attempt[1]?.result).toBe("model error: overloaded");
    const final = finalRow(frames);
    expect(final).toMatchObject({ content: "The planner is unavailable.", status: "complete" });
    expect(final.execution_tree?.nodes.find((n) => n.name === "plan_workflow")).toMatchObject({
      parent_id: "call_bw",
      is_error: true,
    });
    // The model read the failure as the tool's result.
    expect(JSON.stringify(server.provider.requests[2]?.messages.at(-1))).toContain("model error: overloaded");
    const turn = await server.repos.turns.latest("local", threadOf(frames));
    const calls = await server.repos.llmCalls.forTurn("local", turn?.id ?? "");
    expect(calls.map((c) => [c.depth, c.parentId, c.error])).toEqual([
      [0, null, null],
      [1, "call_bw", "overloaded"],
      [0, null, null],
    ]);
    expect(turn?.usage).toMatchObject({ llm_calls: 3 });
    expect(await server.repos.workflows.list("local")).toHaveLength(0);
  });

  it("MAX_TOTAL_LLM_CALLS stops the planning: budget_exceeded, every card ended, nothing saved", async () => {
    server = await startRouteServer(script, { limits: { MAX_TOTAL_LLM_CALLS: 2 } });
    const client = await server.connect();
    client.command("chat_message", {
      content: "Build me a translator",
      chat_context: { kind: "editor", workflow_id: "draft" },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    // The root and the first planner call ran; the repair call was refused before it started.
    expect(server.provider.requests).toHaveLength(2);
    expect(ofType(frames, "budget_exceeded")[0]).toMatchObject({ reason: "llm_calls", limit: 2 });
    const attempts = ofType(frames, "tool_call_update").filter((c) => c.name === "plan_workflow");
    expect(attempts.map((c) => [c.tool_call_id, c.status])).toEqual([
      ["call_bw:plan-1", "start"],
      ["call_bw:plan-1", "end"],
      ["call_bw:plan-2", "start"],
      ["call_bw:plan-2", "end"],
    ]);
    expect(ofType(frames, "usage")[0]).toMatchObject({ llm_calls: 2 });
    const turn = await server.repos.turns.latest("local", threadOf(frames));
    expect(turn?.usage).toMatchObject({ llm_calls: 2 });
    expect(await server.repos.llmCalls.forTurn("local", turn?.id ?? "")).toHaveLength(2);
    const stored = (finalRow(frames).execution_tree?.nodes ?? []).filter((n) => n.name === "plan_workflow");
    expect(stored.map((n) => [n.id, n.is_error])).toEqual([
      ["call_bw:plan-1", true],
      ["call_bw:plan-2", true],
    ]);
    expect(await server.repos.workflows.list("local")).toHaveLength(0);
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

import { DESCRIBE_MAX_NODES, type ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { afterEach, describe, expect, it } from "vitest";
import { ContextScopes } from "../../src/index.js";

let server: RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);
const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;

/** translateGraph with a text.template between the model and the output. */
const withPrefix = {
  nodes: [
    ...translateGraph.nodes.slice(0, 2),
    { id: "prefix", type: "text.template", properties: { template: "FR: {{text}}" } },
    translateGraph.nodes[2],
  ],
  edges: [
    translateGraph.edges[0],
    { source: "llm", source_port: "text", target: "prefix", target_port: "text" },
    { source: "prefix", source_port: "text", target: "out", target_port: "text" },
  ],
};
const echoGraph = {
  nodes: [
    { id: "in", type: "input.text", properties: {} },
    { id: "out", type: "output.text", properties: {} },
  ],
  edges: [{ source: "in", source_port: "text", target: "out", target_port: "text" }],
};

const isPlanner = (r: ProviderRequest) => r.systemPrompt.startsWith("You design workflows");
const plannerAsk = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};

/** Root: build_workflow with `args`, then "done: <tool result>"; planner: `answer`. */
function script(args: Record<string, unknown>, answer: unknown) {
  return (r: ProviderRequest): ScriptedStep => {
    if (isPlanner(r)) return { text: fence(answer) };
    const last = r.messages.at(-1);
    if (last?.role === "tool") return { text: `done: ${last.content}` };
    return { toolCalls: [{ id: "bw", name: "build_workflow", args }] };
  };
}

async function editing(s: RouteTestServer, graph: unknown = translateGraph) {
  await s.repos.users.ensure("local");
  return s.repos.workflows.create("local", "Translator", graph as Record<string, unknown>);
}

function toolResult(frames: ServerFrame[]): Record<string, unknown> {
  const end = ofType(frames, "tool_call_update").find((f) => f.tool_call_id === "bw" && f.status === "end");
  const text = typeof end?.result === "string" ? end.result : "{}";
  expect(end?.is_error ?? false, text).toBe(false);
  return JSON.parse(text) as Record<string, unknown>;
}

describe("the editor agent sees and edits its workflow", () => {
  it("the graph is in the model's context; build_workflow edits it by default and reports the diff", async () => {
    server = await startRouteServer(script({ objective: "prefix the answer with FR:" }, withPrefix));
    const wf = await editing(server);
    const client = await server.connect();
    client.command("chat_message", {
      content: "add a prefix to my workflow",
      chat_context: { kind: "editor", workflow_id: wf.id },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);

    const root = server.provider.requests[0] as ProviderRequest;
    expect(root.systemPrompt).toContain("## The workflow in the editor");
    expect(root.systemPrompt).toContain(`workflow_id "${wf.id}", named "Translator": 3 node(s), 2 edge(s).`);
    expect(root.systemPrompt).toContain("- llm: llm.prompt");
    expect(root.systemPrompt).toContain("- in.text -> llm.prompt");
    expect(root.systemPrompt).toContain('mode "replace" discards it');

    // The planner got the current graph whole and was asked to change only what the objective says.
    const planner = server.provider.requests.find(isPlanner) as ProviderRequest;
    const ask = plannerAsk(planner);
    expect(ask).toContain("The current workflow:");
    expect(ask).toContain(JSON.stringify(translateGraph.nodes[1]));
    expect(ask).toContain("Change: prefix the answer with FR:");

    const result = toolResult(frames);
    expect(result).toMatchObject({
      workflow_id: wf.id,
      mode: "edit",
      changes: {
        nodes_added: ["prefix"],
        nodes_removed: [],
        nodes_changed: [],
        edges_added: ["llm.text->prefix.text", "prefix.text->out.text"],
        edges_removed: ["llm.text->out.text"],
      },
    });
    expect((result.changes as { summary: string }).summary).toBe(
      "added 1 node(s) (prefix); removed 0 nodes; changed 0 nodes; 2 edge(s) added, 1 removed",
    );
    const stored = await server.repos.workflows.get("local", wf.id);
    expect(stored?.graph).toEqual(withPrefix);
    expect(await server.repos.workflows.list("local")).toHaveLength(1);
  });

  it('mode "replace" designs anew from the objective alone; the diff names what went', async () => {
    server = await startRouteServer(script({ objective: "just echo", mode: "replace" }, echoGraph));
    const wf = await editing(server);
    const client = await server.connect();
    client.command("chat_message", {
      content: "start over: echo",
      chat_context: { kind: "editor", workflow_id: wf.id },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const ask = plannerAsk(server.provider.requests.find(isPlanner) as ProviderRequest);
    expect(ask).not.toContain("The current workflow:");
    expect(ask).toContain("Objective: just echo");
    expect(toolResult(frames)).toMatchObject({
      mode: "replace",
      changes: { nodes_added: [], nodes_removed: ["llm"], edges_removed: expect.any(Array) },
    });
    expect((await server.repos.workflows.get("local", wf.id))?.graph).toEqual(echoGraph);
  });

  it("an unreadable stored graph is never replaced by default: the tool says so and the graph stays", async () => {
    server = await startRouteServer(script({ objective: "anything" }, echoGraph));
    const wf = await editing(server, { nodes: "not a list" });
    const client = await server.connect();
    client.command("chat_message", {
      content: "fix it",
      chat_context: { kind: "editor", workflow_id: wf.id },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(server.provider.requests[0]?.systemPrompt).toContain(
      "Its stored graph cannot be read as nodes and edges.",
    );
    const end = ofType(frames, "tool_call_update").find((f) => f.tool_call_id === "bw" && f.status === "end");
    expect(end).toMatchObject({ is_error: true });
    expect(end?.result).toContain('use mode \\"replace\\" to start over');
    expect(server.provider.requests.some(isPlanner)).toBe(false);
    expect((await server.repos.workflows.get("local", wf.id))?.graph).toEqual({ nodes: "not a list" });
  });

  it("a large graph is listed up to the bound, and the context says how much is left out", async () => {
    server = await startRouteServer([{ text: "seen" }]);
    const count = DESCRIBE_MAX_NODES + 5;
    const nodes = Array.from({ length: count }, (_, i) => ({
      id: `n${i}`,
      type: "input.text",
      properties: {},
    }));
    const wf = await editing(server, { nodes, edges: [] });
    const client = await server.connect();
    client.command("chat_message", {
      content: "what is there?",
      chat_context: { kind: "editor", workflow_id: wf.id },
    });
    expectWellFormedTurn(await client.collectUntil(isDone));
    const prompt = server.provider.requests[0]?.systemPrompt ?? "";
    expect(prompt).toContain(`${count} node(s), 0 edge(s).`);
    expect(prompt).toContain(`- n${DESCRIBE_MAX_NODES - 1}: input.text`);
    expect(prompt).not.toContain(`- n${DESCRIBE_MAX_NODES}: input.text`);
    expect(prompt).toContain("- … and 5 more node(s), not listed here");
  });

  it("an operator scope based on the editor takes a workflow_id and edits it; one based on the thread refuses it", async () => {
    server = await startRouteServer(script({ objective: "prefix the answer with FR:" }, withPrefix));
    server.chat.scopes = ContextScopes.from({
      scopes: { canvas: { base: "editor", guidance: "You edit a canvas." }, notes: {} },
    });
    const wf = await editing(server);
    const client = await server.connect();
    client.command("chat_message", {
      content: "add a prefix",
      chat_context: { kind: "canvas", workflow_id: wf.id },
    });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(server.provider.requests[0]?.systemPrompt).toContain(`workflow_id "${wf.id}"`);
    expect(toolResult(frames)).toMatchObject({ workflow_id: wf.id, mode: "edit" });
    expect((await server.repos.workflows.get("local", wf.id))?.graph).toEqual(withPrefix);

    const before = server.provider.requests.length;
    client.command(
      "chat_message",
      { content: "hi", chat_context: { kind: "notes", workflow_id: wf.id } },
      "n1",
    );
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "n1" });
    client.command(
      "chat_message",
      { content: "hi", chat_context: { kind: "thread", workflow_id: wf.id } },
      "t1",
    );
    expect(await client.next("error")).toMatchObject({ code: "bad_request", request_id: "t1" });
    await client.ping();
    expect(server.provider.requests).toHaveLength(before);
  });
});

import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { afterEach, describe, expect, it } from "vitest";
import { ContextScopes, ToolPolicies } from "../../src/index.js";

let server: RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;

/** The agent calls build_workflow when it has it; its planner (a call with no tools) answers a valid graph. */
const agent = (request: ProviderRequest): ScriptedStep => {
  if (request.tools.length === 0) return { text: fence(translateGraph) };
  if (request.messages.at(-1)?.role === "tool") return { text: "Saved." };
  if (!request.tools.some((t) => t.name === "build_workflow"))
    return { text: "I cannot build workflows here." };
  return {
    toolCalls: [{ id: "call_bw", name: "build_workflow", args: { objective: "Translate to French" } }],
  };
};

// Thread-based scopes: build_workflow is an editor-only tool of class editor_mutate, off on a thread base.
const scopes = ContextScopes.from({
  scopes: {
    drafting: { tools: { add: ["build_workflow"] } },
    reviewed: { tools: { add: ["build_workflow"] }, classes: { editor_mutate: "ask" } },
  },
});

const offered = (s: RouteTestServer, call: number) =>
  s.provider.requests[call]?.tools.map((t) => t.name) ?? [];

describe("a thread-based scope's tools.add with a real editor tool (build_workflow)", () => {
  it("offers build_workflow in the scope and it saves a workflow; the plain thread still has no editor tools", async () => {
    server = await startRouteServer(agent);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "build it", chat_context: { kind: "drafting" } });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(offered(server, 0)).toContain("build_workflow");
    const end = frames.find(
      (f): f is Extract<ServerFrame, { type: "tool_call_update" }> =>
        f.type === "tool_call_update" && f.tool_call_id === "call_bw" && f.status === "end",
    );
    expect(end?.is_error ?? false).toBe(false);
    const saved = await server.repos.workflows.list("local");
    expect(saved).toHaveLength(1);
    expect((await server.repos.workflows.get("local", saved[0]?.id ?? ""))?.graph).toMatchObject({
      nodes: translateGraph.nodes.map((n) => ({ id: n.id })),
    });

    const calls = server.provider.requests.length;
    client.command("chat_message", { content: "build it" });
    expectWellFormedTurn(await client.collectUntil(isDone));
    expect(offered(server, calls)).not.toContain("build_workflow");
    expect(await server.repos.workflows.list("local")).toHaveLength(1);
  });

  it("a scope's classes rule applies to the tool it adds: editor_mutate 'ask' asks before saving", async () => {
    server = await startRouteServer(agent);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "build it", chat_context: { kind: "reviewed" } });
    const request = await client.next("tool_approval_request", { timeoutMs: 15_000 });
    expect(request).toMatchObject({ tool_name: "build_workflow", permission_class: "editor_mutate" });
    expect(await server.repos.workflows.list("local")).toHaveLength(0);
    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    await client.collectUntil(isDone, 15_000);
    expect(await server.repos.workflows.list("local")).toHaveLength(1);
  });

  it("a class the user's TOOL_POLICY_FILE entry turns off stays off, whatever the scope adds", async () => {
    const policies = new ToolPolicies({}, { users: { local: { classes: { editor_mutate: "off" } } } });
    server = await startRouteServer(agent, { policies });
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "build it", chat_context: { kind: "drafting" } });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(offered(server, 0)).not.toContain("build_workflow");
    expect(frames.some((f) => f.type === "chunk" && f.content === "I cannot build workflows here.")).toBe(
      true,
    );
    expect(await server.repos.workflows.list("local")).toHaveLength(0);
  });
});

import { defineTool, type ProviderRequest, type Tool, type ToolContext } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { waitingTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectStartsEnded, finalRow, storedMessages } from "./turn-helpers.js";

// An approved call must run exactly as an ungated one: the loop's services, lock, permit, budget,
// ledger and tree, under the turn's own signal (issue 23). Every kind of gated tool: a server tool,
// build_workflow (here) and client UI tools (client-ui-tools.test.ts).

let server: ChatTestServer | RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);

/** Sends a chat message and reads up to the waiting state after the approval request. */
async function untilApproval(client: TestClient, data: object) {
  client.command("chat_message", data);
  const frames = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
  const [request] = ofType(frames, "tool_approval_request");
  if (!request) throw new Error("no tool_approval_request");
  const threadId = (frames.find((f) => "thread_id" in f) as { thread_id: string }).thread_id;
  return { frames, request, threadId };
}

type Probe = Tool & { seen: { services: string[]; toolNames: readonly string[] }[] };

/**
 * A gated tool that works like a small agent: it sends a progress frame, asks the turn's model, runs a
 * nested subtask, and answers with what both said. It records which loop services it was given.
 */
function probeTool(): Probe {
  const seen: Probe["seen"] = [];
  const tool = defineTool({
    name: "probe_write",
    description: "Test tool: asks the model and a subtask, then writes.",
    args: z.object({}),
    permissionClass: "workspace_write",
    requiresExclusiveLock: "probe",
    execute: async (_args, ctx: ToolContext) => {
      const services = (["callModel", "emit", "runSubtask", "toolNames"] as const).filter(
        (k) => ctx[k] !== undefined,
      );
      seen.push({ services, toolNames: ctx.toolNames ?? [] });
      ctx.emit?.({
        type: "progress_update",
        tool_call_id: ctx.toolCallId,
        message: "probing",
        parent_id: ctx.parentId,
        depth: ctx.depth,
      });
      const inner = await ctx.callModel?.({
        systemPrompt: "inner",
        operation: "planner",
        messages: [{ role: "user", content: "inner question" }],
      });
      if (!inner?.ok) return { type: "result", output: `inner failed: ${inner?.error}`, isError: true };
      const sub = await ctx.runSubtask?.({
        id: "probe_step",
        name: "probe_step",
        title: "Probe step",
        instructions: "sub question",
      });
      return { type: "result", output: `inner=${inner.text}; sub=${sub?.text}` };
    },
  });
  return Object.assign(tool, { seen });
}

/** The model: calls probe_write once; answers the inner call and the subtask; reports the result. */
const probeModel = (request: ProviderRequest): ScriptedStep => {
  if (request.systemPrompt === "inner") return { text: "inner answer" };
  const last = request.messages.at(-1);
  if (last?.role === "user" && contentText(last.content) === "sub question") return { text: "sub answer" };
  if (last?.role === "tool") return { text: `result: ${last.content}${last.isError ? " (error)" : ""}` };
  return { toolCalls: [{ id: "p1", name: "probe_write", args: {} }] };
};

describe("an approved call runs as the loop runs any call", () => {
  it("gets the loop's services; its model call, subtask and frames count in the turn and nest under the call", async () => {
    const probe = probeTool();
    server = await startChatServer(probeModel, { policy: { workspaceWrite: "ask" }, extraTools: [probe] });
    const client = await server.connect();
    const { frames: head, request, threadId } = await untilApproval(client, { content: "probe" });
    expect(request.tool_name).toBe("probe_write");
    expect(probe.seen).toEqual([]);

    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const rest = await client.collectUntil(isDone);
    const all = [...head, ...rest];
    expectWellFormedTurn(all);
    expectStartsEnded(all);

    expect(probe.seen).toHaveLength(1);
    expect(probe.seen[0]?.services).toEqual(["callModel", "emit", "runSubtask", "toolNames"]);
    expect(probe.seen[0]?.toolNames).toContain("probe_write");
    expect(finalRow(rest)).toMatchObject({
      content: "result: inner=inner answer; sub=sub answer",
      status: "complete",
    });

    // The tool's progress and its subtask's node sit between the call's start (before the approval)
    // and its end (after the tool ran).
    const updates = ofType(rest, "tool_call_update");
    const end = updates.find((u) => u.tool_call_id === "p1" && u.status === "end");
    expect(end).toMatchObject({ is_error: false, result: "inner=inner answer; sub=sub answer" });
    const progress = ofType(rest, "progress_update")[0];
    expect(progress).toMatchObject({ tool_call_id: "p1", message: "probing", depth: 0 });
    const step = updates.filter((u) => u.tool_call_id === "probe_step");
    expect(step.map((u) => [u.status, u.parent_id, u.depth])).toEqual([
      ["start", "p1", 1],
      ["end", "p1", 1],
    ]);
    const at = (f: ServerFrame | undefined) => rest.indexOf(f as ServerFrame);
    expect(at(progress)).toBeLessThan(at(step[0]));
    expect(at(step[1])).toBeLessThan(at(end));

    // Ledger, usage and stored rows: four model calls (root, inner, subtask, root), one tool call.
    const turn = await server.repos.turns.latest("local", threadId);
    expect(turn?.usage).toMatchObject({ llm_calls: 4, tool_calls: 1, subtasks: 1 });
    const calls = await server.repos.llmCalls.forTurn("local", turn?.id ?? "");
    expect(calls.map((c) => [c.depth, c.parentId])).toEqual([
      [0, null],
      [1, "p1"],
      [2, "probe_step"],
      [0, null],
    ]);
    const rows = await storedMessages(server, threadId);
    expect(rows.find((r) => r.role === "tool")).toMatchObject({
      tool_call_id: "p1",
      content: "inner=inner answer; sub=sub answer",
    });
  });

  it("counts against the turn's budget: with no model call left, its own model call breaches it and the call ends stopped", async () => {
    const probe = probeTool();
    server = await startChatServer(probeModel, {
      policy: { workspaceWrite: "ask" },
      extraTools: [probe],
      limits: { MAX_TOTAL_LLM_CALLS: 1 },
    });
    const client = await server.connect();
    const { request } = await untilApproval(client, { content: "probe" });
    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const rest = await client.collectUntil(isDone);
    expect(probe.seen).toHaveLength(1);
    const end = ofType(rest, "tool_call_update").find((u) => u.tool_call_id === "p1" && u.status === "end");
    // As in any call: the breach stops the turn's tree, so the call ends stopped by the budget.
    expect(end).toMatchObject({ is_error: true, result: "stopped: the turn's budget is exhausted" });
    expect(ofType(rest, "budget_exceeded")[0]).toMatchObject({ reason: "llm_calls" });
    // The provider saw only the root's first call.
    expect(server.provider.requests).toHaveLength(1);
  });

  it("outlives the approving socket: closed right after allow, the call and the turn finish, seen from another socket", async () => {
    const base = waitingTool("slow_write");
    const slow = Object.assign(base, { permissionClass: "workspace_write" as const });
    server = await startChatServer(
      (request) => {
        const last = request.messages.at(-1);
        if (last?.role === "tool") return { text: `result: ${last.content}` };
        return { toolCalls: [{ id: "s1", name: "slow_write", args: {} }] };
      },
      { policy: { workspaceWrite: "ask" }, extraTools: [slow] },
    );
    const approving = await server.connect();
    const { request, threadId } = await untilApproval(approving, { content: "write slowly" });
    approving.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    await approving.close();

    await slow.started;
    const other = await server.connect();
    other.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    await other.next("chat_resumed");
    slow.release("written");
    const frames = await other.collectUntil(isDone);
    // "written", not "aborted": the socket's close did not reach the tool (the level's end aborts it later).
    const end = ofType(frames, "tool_call_update").find((u) => u.tool_call_id === "s1" && u.status === "end");
    expect(end).toMatchObject({ is_error: false, result: "written" });
    expect(finalRow(frames)).toMatchObject({ content: "result: written", status: "complete" });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
  });

  it("stops with the turn: stop while the approved call runs aborts it and ends the turn", async () => {
    const slow = Object.assign(waitingTool("slow_write"), { permissionClass: "workspace_write" as const });
    server = await startChatServer([{ toolCalls: [{ id: "s1", name: "slow_write", args: {} }] }], {
      policy: { workspaceWrite: "ask" },
      extraTools: [slow],
    });
    const client = await server.connect();
    const { request, threadId } = await untilApproval(client, { content: "write slowly" });
    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    await slow.started;
    client.command("stop", { thread_id: threadId });
    const frames = await client.collectUntil(isDone);
    expect(slow.aborted()).toBe(true);
    expect(frames.some((f) => f.type === "generation_stopped")).toBe(true);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
  });
});

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;

describe("an approved build_workflow (editorMutate: ask)", () => {
  it("plans with the turn's model inside the resumed turn and stores the graph", async () => {
    server = await startRouteServer(
      [
        {
          toolCalls: [{ id: "call_bw", name: "build_workflow", args: { objective: "Translate to French" } }],
        },
        { text: fence(translateGraph) },
        { text: "Your workflow is ready." },
      ],
      { policy: { editorMutate: "ask" } },
    );
    const routes = server;
    await routes.repos.users.ensure("local");
    const editing = await routes.repos.workflows.create("local", "Draft", { nodes: [], edges: [] });
    const client = await routes.connect();
    const {
      frames: head,
      request,
      threadId,
    } = await untilApproval(client, {
      content: "Build me a translator",
      chat_context: { kind: "editor", workflow_id: editing.id },
    });
    expect(request).toMatchObject({ tool_name: "build_workflow", permission_class: "editor_mutate" });
    expect(routes.provider.requests).toHaveLength(1);

    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const rest = await client.collectUntil(isDone);
    expectWellFormedTurn([...head, ...rest]);
    expectStartsEnded([...head, ...rest]);
    const end = ofType(rest, "tool_call_update").find(
      (u) => u.tool_call_id === "call_bw" && u.status === "end",
    );
    expect(end?.is_error).toBe(false);
    expect(String(end?.result)).not.toMatch(/only inside an agent turn/);
    const attempts = ofType(rest, "tool_call_update").filter((u) => u.name === "plan_workflow");
    expect(attempts.map((u) => [u.status, u.parent_id])).toEqual([
      ["start", "call_bw"],
      ["end", "call_bw"],
    ]);
    expect(routes.provider.requests[1]?.model).toBe("scripted-1");
    expect(finalRow(rest)).toMatchObject({ content: "Your workflow is ready.", status: "complete" });
    const stored = await routes.repos.workflows.get("local", editing.id);
    expect(stored?.graph).toMatchObject({ nodes: translateGraph.nodes.map((n) => ({ id: n.id })) });
    const turn = await routes.repos.turns.latest("local", threadId);
    const calls = await routes.repos.llmCalls.forTurn("local", turn?.id ?? "");
    expect(calls.map((c) => [c.depth, c.parentId])).toEqual([
      [0, null],
      [1, "call_bw"],
      [0, null],
    ]);
  });
});

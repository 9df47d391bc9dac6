import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type ServerFrameOf } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import {
  type RouteTestServer,
  startRouteServer,
  translateGraph,
} from "@agentwire-chat/testkit/route-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: RouteTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;
const TIMEOUT = 15_000;

/** "build" makes the agent call build_workflow (its planner answers the translator); anything else is answered. */
const agent = (request: ProviderRequest): ScriptedStep => {
  if (request.tools.length === 0) return { text: fence(translateGraph) };
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: "Saved." };
  if (last?.role === "user" && contentText(last.content) === "build")
    return {
      toolCalls: [{ id: "call_bw", name: "build_workflow", args: { objective: "Translate to French" } }],
    };
  return { text: "ok" };
};

/** Sends a message in a context and waits for its turn's end: how a socket declares its editor context. */
async function say(client: TestClient, content: string, chat_context?: object): Promise<void> {
  client.command("chat_message", { content, ...(chat_context && { chat_context }) });
  await client.collectUntil(isDone, TIMEOUT);
}

/**
 * No workflow_updated reached the socket: the server answers a ping after anything it sent before,
 * and every socket of a save is sent to in the same pass as the one that got it.
 */
async function expectNoUpdate(client: TestClient): Promise<void> {
  await client.ping();
  expect(client.received.filter((f) => f.type === "workflow_updated")).toEqual([]);
}

/** The workflow_updated frames the socket got so far (read or not). */
const updates = (client: TestClient) =>
  client.received.filter((f): f is ServerFrameOf<"workflow_updated"> => f.type === "workflow_updated");

const nodeIds = (frame: ServerFrameOf<"workflow_updated">) =>
  (frame.workflow.graph.nodes as { id: string }[]).map((n) => n.id);

describe("workflow_updated: the user's editors see what was saved", () => {
  it("build_workflow's save reaches every socket of the user with the workflow open, and no other", async () => {
    server = await startRouteServer(agent, { auth: "token" });
    const s = server;
    const aliceToken = await s.createToken("alice");
    const editing = await s.repos.workflows.create("alice", "Draft", { nodes: [], edges: [] });
    const editor = { kind: "editor", workflow_id: editing.id };
    const builder = await s.connect({ token: aliceToken });
    const watcher = await s.connect({ token: aliceToken });
    const elsewhere = await s.connect({ token: aliceToken });
    const stranger = await s.connect({ token: await s.createToken("mallory") });
    await say(watcher, "hello", editor);
    await say(elsewhere, "hello", editor);
    // Its latest message is in the thread context: the editor is closed on that socket.
    await say(elsewhere, "hello");
    // Another user naming the same id opens nothing of alice's.
    await say(stranger, "hello", editor);

    // The save happens inside the turn: the frame is there by the turn's end.
    await say(builder, "build", editor);
    const [built] = updates(builder);
    if (!built) throw new Error("the builder got no workflow_updated");
    const seen = await watcher.next("workflow_updated", { timeoutMs: TIMEOUT });
    expect(built).toEqual(seen);
    expect(built.workflow).toMatchObject({ id: editing.id, name: "Draft" });
    expect(nodeIds(built)).toEqual(translateGraph.nodes.map((n) => n.id));
    const row = await s.repos.workflows.get("alice", editing.id);
    expect(built.workflow.updated_at).toBe(new Date(row?.updatedAt ?? 0).toISOString());
    await expectNoUpdate(elsewhere);
    await expectNoUpdate(stranger);
  });

  it("PUT /api/workflows/:id reaches the open editors; a workflow not open reaches none", async () => {
    server = await startRouteServer(agent, { auth: "token" });
    const s = server;
    const token = await s.createToken("alice");
    const open = await s.repos.workflows.create("alice", "Open", { nodes: [], edges: [] });
    const other = await s.repos.workflows.create("alice", "Other", { nodes: [], edges: [] });
    const editor = await s.connect({ token });
    await say(editor, "hello", { kind: "editor", workflow_id: open.id });

    const put = (id: string, body: object) =>
      s.fetch(`/api/workflows/${id}`, {
        method: "PUT",
        token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await put(other.id, { name: "Renamed elsewhere" })).status).toBe(200);
    expect((await put(open.id, { name: "Translator", graph: translateGraph })).status).toBe(200);
    const frame = await editor.next("workflow_updated", { timeoutMs: TIMEOUT });
    expect(frame.workflow).toMatchObject({ id: open.id, name: "Translator" });
    expect(nodeIds(frame)).toEqual(["in", "llm", "out"]);
    // The PUT of the other workflow came first and sent nothing.
    expect(updates(editor)).toHaveLength(1);
    // A refused PUT saves nothing and sends nothing.
    expect((await put(open.id, { graph: { nodes: "x" } })).status).toBe(400);
    await editor.ping();
    expect(updates(editor)).toHaveLength(1);
  });

  it("an editor whose workflow_id was not the user's gets the new workflow build_workflow made, and keeps it open", async () => {
    server = await startRouteServer(agent);
    const s = server;
    const editor = await s.connect();
    await say(editor, "build", { kind: "editor", workflow_id: "not-saved-yet" });
    const [created] = updates(editor);
    if (!created) throw new Error("the editor got no workflow_updated");
    expect(created.workflow.id).not.toBe("not-saved-yet");
    expect(await s.repos.workflows.get("local", created.workflow.id)).toBeDefined();

    const put = await s.fetch(`/api/workflows/${created.workflow.id}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Kept open" }),
    });
    expect(put.status).toBe(200);
    const renamed = await editor.next("workflow_updated", {
      where: (f) => f.workflow.name === "Kept open",
      timeoutMs: TIMEOUT,
    });
    expect(renamed.workflow).toMatchObject({ id: created.workflow.id, name: "Kept open" });
  });

  it("an approved build_workflow (TOOL_APPROVAL_EDITOR_MUTATE=ask) sends it once the save happens", async () => {
    server = await startRouteServer(agent, { policy: { editorMutate: "ask" } });
    const s = server;
    await s.repos.users.ensure("local");
    const editing = await s.repos.workflows.create("local", "Draft", { nodes: [], edges: [] });
    const editor = await s.connect();
    editor.command("chat_message", {
      content: "build",
      chat_context: { kind: "editor", workflow_id: editing.id },
    });
    const request = await editor.next("tool_approval_request", { timeoutMs: TIMEOUT });
    expect(editor.received.some((f) => f.type === "workflow_updated")).toBe(false);
    editor.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const frame = await editor.next("workflow_updated", { timeoutMs: TIMEOUT });
    expect(frame.workflow.id).toBe(editing.id);
    expect(nodeIds(frame)).toEqual(["in", "llm", "out"]);
    await editor.collectUntil(isDone, TIMEOUT);
  });
});

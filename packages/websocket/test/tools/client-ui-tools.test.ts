import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { type ToolPolicyConfig, UIToolProxy } from "../../src/index.js";
import { type InjectedCall, injectedModel, toolEnds } from "./tool-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const editor = { chat_context: { kind: "editor", workflow_id: "wf-1" } };

const notifySpec = {
  name: "ui_notify",
  description: "Show a notification in the editor.",
  input_schema: {
    type: "object",
    properties: { message: { type: "string", maxLength: 200 } },
    required: ["message"],
    additionalProperties: false,
  },
};
const graphSpec = {
  name: "ui_show_graph",
  description: "Draw a graph.",
  input_schema: { type: "object", properties: { nodes: { type: "array" } }, required: ["nodes"] },
};

async function startUiServer(
  options: { timeoutMs?: number; policy?: Partial<ToolPolicyConfig>; auth?: "token" } = {},
): Promise<{ server: ChatTestServer; uiTools: UIToolProxy }> {
  const uiTools = new UIToolProxy(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {});
  const started = await startChatServer(injectedModel(), {
    uiTools,
    // Client UI tools come with the editor context, which needs a node registry (editorTools).
    editorTools: [],
    ...(options.policy && { policy: options.policy }),
    ...(options.auth && { auth: options.auth }),
  });
  server = started;
  return { server: started, uiTools };
}

/** Announces the tools and proves the manifest was handled (frames of one socket are handled in order). */
async function announce(client: TestClient, tools: unknown[]): Promise<void> {
  client.command("client_tools_manifest", { tools });
  await client.ping();
}

function startEditorTurn(client: TestClient, calls: InjectedCall[]): void {
  client.command("chat_message", { content: JSON.stringify(calls), ...editor });
}

const toolMessages = (s: ChatTestServer, request: number) =>
  s.provider.requests[request]?.messages.filter((m) => m.role === "tool") ?? [];

describe("client UI tools (editor context) through the real socket", () => {
  it("round trip: manifest → tool_call on the socket → tool_result → the model sees the result", async () => {
    const { server, uiTools } = await startUiServer();
    const client = await server.connect();
    await announce(client, [notifySpec, graphSpec]);
    expect(uiTools.announced(uiConnectionIdOf(uiTools)).sort()).toEqual(["ui_notify", "ui_show_graph"]);

    startEditorTurn(client, [{ name: "ui_notify", args: { message: "hello editor" } }]);
    const call = await client.next("tool_call");
    expect(call).toMatchObject({ name: "ui_notify", args: { message: "hello editor" } });
    expect(call.thread_id).toEqual(expect.any(String));
    // Sent on the socket, outside the turn's seq (see docs/tools.md).
    expect(call.seq).toBeUndefined();
    client.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: { shown: true } });
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "tool_call")).toBe(false);
    const [end] = toolEnds(frames);
    expect(end).toMatchObject({ tool_call_id: call.tool_call_id, name: "ui_notify" });
    expect(end?.is_error).toBeFalsy();
    expect(JSON.parse(toolMessages(server, 1)[0]?.content ?? "null")).toEqual({ shown: true });

    // The model was offered the announced tools with their schemas.
    const offered = server.provider.requests[0]?.tools ?? [];
    expect(offered.find((t) => t.name === "ui_notify")).toMatchObject({
      description: notifySpec.description,
    });

    // A second answer to the same call is refused: a call is answered once.
    client.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "again" }, "dup");
    expect(await client.next("error")).toMatchObject({ code: "not_found", request_id: "dup" });
    expect(uiTools.pendingCount()).toBe(0);
  });

  it("an ok:false result is an error result with the client's message", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    await announce(client, [notifySpec]);
    startEditorTurn(client, [{ name: "ui_notify", args: { message: "x" } }]);
    const call = await client.next("tool_call");
    client.command("tool_result", {
      tool_call_id: call.tool_call_id,
      ok: false,
      error: "editor is read-only",
    });
    const [end] = toolEnds(await client.collectUntil(isDone));
    expect(end).toMatchObject({ is_error: true, result: "editor is read-only" });
  });

  it("validates the model's arguments against the announced schema before anything is sent", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    await announce(client, [notifySpec]);
    startEditorTurn(client, [{ name: "ui_notify", args: { message: 42, extra: true } }]);
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "tool_call")).toBe(false);
    expect(client.received.some((f) => f.type === "tool_call")).toBe(false);
    const [end] = toolEnds(frames);
    expect(end?.is_error).toBe(true);
    expect(String(end?.result)).toMatch(/invalid arguments for ui_notify/);
  });

  it("offers client tools only in editor context", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    await announce(client, [notifySpec]);
    client.command("chat_message", { content: "[]" });
    await client.collectUntil(isDone);
    startEditorTurn(client, []);
    await client.collectUntil(isDone);
    const names = server.provider.requests.map((r) => r.tools.map((t) => t.name));
    expect(names[0]).not.toContain("ui_notify");
    expect(names[1]).toContain("ui_notify");
  });

  it("a client that does not answer in time gets the call ended with an error; a late answer is not_found", async () => {
    const { server, uiTools } = await startUiServer({ timeoutMs: 150 });
    const client = await server.connect();
    await announce(client, [notifySpec]);
    startEditorTurn(client, [{ name: "ui_notify", args: { message: "anyone?" } }]);
    const call = await client.next("tool_call");
    const frames = await client.collectUntil(isDone);
    const [end] = toolEnds(frames);
    expect(end).toMatchObject({ is_error: true });
    expect(String(end?.result)).toBe("the editor did not answer ui_notify within 150 ms");
    expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { content: "done", status: "complete" },
    });
    client.command("tool_result", { tool_call_id: call.tool_call_id, ok: true }, "late");
    expect(await client.next("error")).toMatchObject({ code: "not_found", request_id: "late" });
    expect(uiTools.pendingCount()).toBe(0);
  });

  it("the client's socket closing while the call waits ends it with an error at once, and the turn goes on", async () => {
    // A long timeout: the error must come from the close, not from the timer.
    const { server, uiTools } = await startUiServer({ timeoutMs: 60_000 });
    const editorTab = await server.connect();
    const otherTab = await server.connect();
    await announce(editorTab, [notifySpec]);
    startEditorTurn(editorTab, [{ name: "ui_notify", args: { message: "bye" } }]);
    const call = await editorTab.next("tool_call");
    const threadId = call.thread_id as string;
    await editorTab.close();

    otherTab.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const frames = await otherTab.collectUntil(isDone);
    const end = toolEnds(frames).find((e) => e.tool_call_id === call.tool_call_id);
    expect(end).toMatchObject({ is_error: true });
    expect(String(end?.result)).toMatch(/disconnected before it answered/);
    expect(toolMessages(server, 1)[0]).toMatchObject({ isError: true });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
    expect(uiTools.pendingCount()).toBe(0);
    // The closed socket's manifest is gone: a new turn from the other tab has no client tools.
    startEditorTurn(otherTab, []);
    await otherTab.collectUntil(isDone);
    expect(server.provider.requests.at(-1)?.tools.map((t) => t.name)).not.toContain("ui_notify");
  });

  it("refuses a tool_result from any other connection (same user or not); the right socket then answers", async () => {
    const { server } = await startUiServer({ auth: "token" });
    const aliceToken = await server.createToken("alice");
    const alice = await server.connect({ token: aliceToken });
    const aliceOtherTab = await server.connect({ token: aliceToken });
    const mallory = await server.connect({ token: await server.createToken("mallory") });
    await announce(alice, [notifySpec]);
    // The other tab announces the same tool: it still may not answer a call sent to alice's editor.
    await announce(aliceOtherTab, [notifySpec]);
    startEditorTurn(alice, [{ name: "ui_notify", args: { message: "secret plan" } }]);
    const call = await alice.next("tool_call");
    aliceOtherTab.command("resume_chat", { thread_id: call.thread_id, last_seq: 0 });
    await aliceOtherTab.next("chat_resumed");

    mallory.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "forged" }, "m1");
    expect(await mallory.next("error")).toMatchObject({ code: "not_found", request_id: "m1" });
    aliceOtherTab.command(
      "tool_result",
      { tool_call_id: call.tool_call_id, ok: true, result: "forged" },
      "t2",
    );
    expect(await aliceOtherTab.next("error")).toMatchObject({ code: "not_found", request_id: "t2" });

    alice.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "genuine" });
    const frames = await alice.collectUntil(isDone);
    expect(toolEnds(frames)[0]).toMatchObject({ result: "genuine" });
    expect(toolMessages(server, 1)[0]).toMatchObject({ content: "genuine" });
    // Only the turn's socket was asked: the watching tab and the other user never saw the tool_call.
    await aliceOtherTab.collectUntil(isDone);
    expect(aliceOtherTab.received.some((f) => f.type === "tool_call")).toBe(false);
    expect(mallory.received.some((f: ServerFrame) => f.type === "tool_call")).toBe(false);
  });

  it("with editorMutate: ask, the call waits for approval before the tool_call is sent", async () => {
    const { server } = await startUiServer({ policy: { editorMutate: "ask" } });
    const client = await server.connect();
    await announce(client, [notifySpec]);
    startEditorTurn(client, [{ name: "ui_notify", args: { message: "may I?" } }]);
    const request = await client.next("tool_approval_request");
    expect(request).toMatchObject({ tool_name: "ui_notify", permission_class: "editor_mutate" });
    expect(client.received.some((f) => f.type === "tool_call")).toBe(false);
    client.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    const call = await client.next("tool_call");
    client.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "shown" });
    const frames = await client.collectUntil(isDone);
    expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { content: "done", status: "complete" },
    });
    expect(toolMessages(server, 1).at(-1)).toMatchObject({ content: "shown" });
  });

  it("stopping the turn while a call waits ends the call and the turn", async () => {
    const { server, uiTools } = await startUiServer();
    const client = await server.connect();
    await announce(client, [notifySpec]);
    startEditorTurn(client, [{ name: "ui_notify", args: { message: "wait" } }]);
    const call = await client.next("tool_call");
    client.command("stop", { thread_id: call.thread_id });
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "generation_stopped")).toBe(true);
    expect(uiTools.pendingCount()).toBe(0);
    client.command("tool_result", { tool_call_id: call.tool_call_id, ok: true }, "after-stop");
    expect(await client.next("error")).toMatchObject({ code: "not_found" });
  });
});

describe("client_tools_manifest", () => {
  const refusals: [string, unknown][] = [
    [
      "a schema that does not compile",
      { ...notifySpec, input_schema: { type: "object", properties: { a: { type: "nonsense" } } } },
    ],
    ["a server tool's name", { ...notifySpec, name: "read_file" }],
    // Once missing from a hand-written list: such a manifest was taken and the tool silently dropped.
    ["send_update's name", { ...notifySpec, name: "send_update" }],
    ["create_plan's name", { ...notifySpec, name: "create_plan" }],
    ["scratchpad_update's name", { ...notifySpec, name: "scratchpad_update" }],
    ["finish_subtask's name", { ...notifySpec, name: "finish_subtask" }],
    ["an MCP-style name", { ...notifySpec, name: "files__read" }],
    [
      "a regular expression",
      {
        ...notifySpec,
        input_schema: { type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } },
      },
    ],
    [
      "patternProperties",
      { ...notifySpec, input_schema: { type: "object", patternProperties: { "^x": {} } } },
    ],
    ["a non-object schema", { ...notifySpec, input_schema: { type: "string" } }],
    [
      "a remote $ref",
      {
        ...notifySpec,
        input_schema: { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } },
      },
    ],
    ["an async schema", { ...notifySpec, input_schema: { $async: true, type: "object" } }],
  ];
  for (const [what, spec] of refusals) {
    it(`refuses ${what} with bad_request and keeps the previous manifest`, async () => {
      const { server, uiTools } = await startUiServer();
      const client = await server.connect();
      await announce(client, [graphSpec]);
      client.command("client_tools_manifest", { tools: [notifySpec, spec] }, "m");
      const error = await client.next("error");
      expect(error).toMatchObject({ code: "bad_request", request_id: "m" });
      expect(error.message).toMatch(/client_tools_manifest: tool /);
      expect(error.message).toContain(`tool ${(spec as { name: string }).name}:`);
      expect(uiTools.announced(uiConnectionIdOf(uiTools))).toEqual(["ui_show_graph"]);
    });
  }

  it("refuses a name announced twice", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    client.command("client_tools_manifest", { tools: [notifySpec, notifySpec] });
    expect((await client.next("error")).message).toMatch(/announced twice/);
  });

  it("a new manifest replaces the previous one", async () => {
    const { server } = await startUiServer();
    const client = await server.connect();
    await announce(client, [notifySpec]);
    await announce(client, [graphSpec]);
    startEditorTurn(client, []);
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const names = server.provider.requests[0]?.tools.map((t) => t.name) ?? [];
    expect(names).toContain("ui_show_graph");
    expect(names).not.toContain("ui_notify");
  });

  it("without client tools on the server, the commands answer unavailable", async () => {
    server = await startChatServer([]);
    const client = await server.connect();
    client.command("client_tools_manifest", { tools: [notifySpec] });
    expect(await client.next("error")).toMatchObject({ code: "unavailable" });
  });
});

/** The one connection that announced tools (tests here have one announcing socket at a time). */
function uiConnectionIdOf(uiTools: UIToolProxy): string {
  const ids = uiTools.connectionIds();
  if (ids.length !== 1) throw new Error(`expected one announcing connection, got ${ids.length}`);
  return ids[0] as string;
}

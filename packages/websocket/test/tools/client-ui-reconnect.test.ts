import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { UIToolProxy } from "../../src/index.js";
import { injectedModel, toolEnds } from "./tool-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const editor = { chat_context: { kind: "editor", workflow_id: "wf-1" } };
const notifySpec = {
  name: "ui_notify",
  description: "Show a notification in the editor.",
  input_schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
};

async function startGraceServer(reconnectGraceMs: number) {
  const uiTools = new UIToolProxy({ timeoutMs: 60_000, reconnectGraceMs });
  server = await startChatServer(injectedModel(), { uiTools, editorTools: [], auth: "token" });
  return { server, uiTools };
}

describe("client UI tools with a reconnect grace", () => {
  it("a call whose socket closed is answered by the user's new socket; the turn goes on with the result", async () => {
    const { server, uiTools } = await startGraceServer(10_000);
    const token = await server.createToken("alice");
    const editorTab = await server.connect({ token });
    editorTab.command("client_tools_manifest", { tools: [notifySpec] });
    await editorTab.ping();
    editorTab.command("chat_message", {
      content: JSON.stringify([{ name: "ui_notify", args: { message: "hi" } }]),
      ...editor,
    });
    const call = await editorTab.next("tool_call");
    await editorTab.close();
    // The call outlives its socket (a long timeout: nothing else ends it meanwhile).
    expect(uiTools.pendingCount()).toBe(1);

    // Another user cannot answer it; the user's reconnected socket can, once.
    const mallory = await server.connect({ token: await server.createToken("mallory") });
    mallory.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "forged" }, "m");
    expect(await mallory.next("error")).toMatchObject({ code: "not_found", request_id: "m" });
    const reconnected = await server.connect({ token });
    reconnected.command("resume_chat", { thread_id: call.thread_id, last_seq: 0 });
    await reconnected.next("chat_resumed");
    reconnected.command("tool_result", { tool_call_id: call.tool_call_id, ok: true, result: "shown" });
    const frames = await reconnected.collectUntil(isDone);
    expect(toolEnds(frames)[0]).toMatchObject({ tool_call_id: call.tool_call_id, result: "shown" });
    expect(toolEnds(frames)[0]?.is_error).toBeFalsy();
    expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { content: "done", status: "complete" },
    });
    reconnected.command("tool_result", { tool_call_id: call.tool_call_id, ok: true }, "again");
    expect(await reconnected.next("error")).toMatchObject({ code: "not_found", request_id: "again" });
    expect(uiTools.pendingCount()).toBe(0);
  });

  it("without an answer the call ends after the grace, not at the 60 s timeout", async () => {
    const { server, uiTools } = await startGraceServer(200);
    const token = await server.createToken("alice");
    const editorTab = await server.connect({ token });
    const watcher = await server.connect({ token });
    editorTab.command("client_tools_manifest", { tools: [notifySpec] });
    await editorTab.ping();
    editorTab.command("chat_message", {
      content: JSON.stringify([{ name: "ui_notify", args: { message: "bye" } }]),
      ...editor,
    });
    const call = await editorTab.next("tool_call");
    watcher.command("resume_chat", { thread_id: call.thread_id, last_seq: 0 });
    await editorTab.close();
    const frames = await watcher.collectUntil(isDone);
    const end = toolEnds(frames).find((e) => e.tool_call_id === call.tool_call_id);
    expect(end).toMatchObject({ is_error: true });
    expect(String(end?.result)).toMatch(/disconnected before it answered/);
    expect(uiTools.pendingCount()).toBe(0);
  });
});

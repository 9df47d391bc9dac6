import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const buildWorkflow = () => echoTool("build_workflow", "editor_mutate");
const toolNames = (s: ChatTestServer, call: number) =>
  s.provider.requests[call]?.tools.map((t) => t.name) ?? [];
const editor = { kind: "editor", workflow_id: "wf_1" } as const;

describe("editor and thread toolbelts", () => {
  it("offers build_workflow in editor context and not in thread context", async () => {
    server = await startChatServer([{ text: "editing" }, { text: "chatting" }, { text: "default" }], {
      editorTools: [buildWorkflow()],
    });
    const client = await server.connect();
    client.command("chat_message", { content: "edit", chat_context: editor });
    expectWellFormedTurn(await client.collectUntil(isDone));
    client.command("chat_message", { content: "chat", chat_context: { kind: "thread" } });
    expectWellFormedTurn(await client.collectUntil(isDone));
    client.command("chat_message", { content: "no context" });
    expectWellFormedTurn(await client.collectUntil(isDone));
    expect(toolNames(server, 0)).toContain("build_workflow");
    expect(toolNames(server, 0)).toEqual(expect.arrayContaining(["ask_user", "run_subtask"]));
    expect(toolNames(server, 1)).not.toContain("build_workflow");
    expect(toolNames(server, 2)).not.toContain("build_workflow");
    expect(toolNames(server, 1).sort()).toEqual([
      "ask_user",
      "create_plan",
      "run_subtask",
      "scratchpad_update",
      "send_update",
    ]);
  });

  it("omits build_workflow in editor context when the server has no editor tools, and logs a warning", async () => {
    server = await startChatServer([{ text: "editing without a registry" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "edit", chat_context: editor });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(toolNames(server, 0)).not.toContain("build_workflow");
    expect(toolNames(server, 0).sort()).toEqual([
      "ask_user",
      "create_plan",
      "run_subtask",
      "scratchpad_update",
      "send_update",
    ]);
    const warnings = server.logs
      .map((line) => JSON.parse(line) as { level: number; msg?: string })
      .filter((entry) => entry.level === 40 && /editor context/.test(entry.msg ?? ""));
    expect(warnings).toHaveLength(1);
  });
});

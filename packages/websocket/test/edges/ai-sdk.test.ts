import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
  type UIMessageChunk,
  type WebSocketChatTransportResponse,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { TransportResponse, UiChunk } from "../../src/edges/ai-sdk/ui-chunks.js";
import { aiSdkTransport, NodeChat, textOf } from "./ai-sdk-chat.js";

// The edge's restated types must stay assignable to the real ones: a drift fails the typecheck.
const _chunk: UIMessageChunk = {} as UiChunk;
const _response: WebSocketChatTransportResponse = {} as TransportResponse;

let server: ChatTestServer | undefined;
const chats: NodeChat[] = [];
const transports: { close(): void }[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) transport.close();
  chats.length = 0;
  await server?.close();
  server = undefined;
});

function openChat(
  s: ChatTestServer,
  id: string,
  token: string,
  init: Partial<ConstructorParameters<typeof NodeChat>[0]> = {},
  record?: (response: WebSocketChatTransportResponse) => void,
) {
  const transport = aiSdkTransport(s.httpUrl, token, record);
  transports.push(transport);
  const chat = new NodeChat({ id, transport, ...init });
  chats.push(chat);
  return { chat, transport };
}

const assistant = (chat: NodeChat) => chat.messages.find((m) => m.role === "assistant");
const toolPart = (message: UIMessage | undefined, name: string) =>
  message?.parts.find((p) => p.type === "dynamic-tool" && p.toolName === name) as
    | Extract<UIMessage["parts"][number], { type: "dynamic-tool" }>
    | undefined;
const nodes = (message: UIMessage | undefined) =>
  (message?.parts ?? [])
    .filter((p) => p.type === "data-agentwire-node")
    .map((p) => (p as { data: Record<string, unknown> }).data);
const metadata = (message: UIMessage | undefined) =>
  (message?.metadata as { agentwire?: Record<string, unknown> })?.agentwire;

/** The chunk types of each response the transport received, by requestId, in sequence order. */
function chunkTypesByResponse(responses: WebSocketChatTransportResponse[]): string[][] {
  const byRequest = new Map<string, { sequence: number; type: string }[]>();
  for (const r of responses) {
    if (r.type !== "chunk") continue;
    const list = byRequest.get(r.requestId) ?? [];
    list.push({ sequence: r.sequence, type: r.chunk.type });
    byRequest.set(r.requestId, list);
  }
  return [...byRequest.values()].map((l) => l.sort((a, b) => a.sequence - b.sequence).map((c) => c.type));
}

describe("/ws/ai-sdk with the AI SDK's WebSocketChatTransport", () => {
  it("streams a turn as text parts on a thread named by the chat id, with usage and status as metadata", async () => {
    server = await startChatServer(
      [{ text: ["Hel", "lo ", "there"], usage: { inputTokens: 7, outputTokens: 3 } }],
      {
        auth: "token",
      },
    );
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-send", token);
    await chat.sendMessage({ text: "Hi" });
    await until(() => chat.status === "ready" && assistant(chat), "the answer");
    const answer = assistant(chat);
    expect(textOf(answer)).toBe("Hello there");
    expect(answer?.id).toMatch(/^aw-/);
    expect(metadata(answer)).toMatchObject({
      status: "complete",
      usage: { input_tokens: 7, output_tokens: 3 },
    });
    // The chat id is the thread: stored for alice under that id, with both messages.
    const thread = await server.repos.threads.get("alice", "chat-send");
    expect(thread?.title).toBe("Hi");
    const stored = await server.repos.messages.list("alice", "chat-send");
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["user", "Hi"],
      ["assistant", "Hello there"],
    ]);
    // The model got the thread's history, not the client's: a second message continues the thread.
    expect(server.provider.requests).toHaveLength(1);
  });

  it("draws parallel subtasks as data-agentwire-node parts that nest, each with its streamed text", async () => {
    const subtaskOf = (request: ProviderRequest) => {
      const first = request.messages[0];
      return first?.role === "user" && typeof first.content === "string" ? first.content : "";
    };
    const echo = echoTool();
    const respond = (request: ProviderRequest): ScriptedStep => {
      const sub = subtaskOf(request);
      const hasResult = request.messages.some((m) => m.role === "tool");
      if (sub === "sub:A")
        return hasResult
          ? { text: "A done" }
          : { text: "A looks", toolCalls: [{ id: "echo_a", name: "echo", args: { text: "a" } }] };
      if (sub === "sub:B") return { text: ["B ", "done"] };
      return hasResult
        ? { text: "All done" }
        : {
            text: "Splitting.",
            toolCalls: [
              { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
              { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
            ],
          };
    };
    server = await startChatServer(respond, { extraTools: [echo], auth: "token" });
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-tree", token);
    await chat.sendMessage({ text: "do both" });
    await until(
      () => chat.status === "ready" && metadata(assistant(chat))?.status === "complete",
      "the turn's end",
    );
    const answer = assistant(chat);
    expect(textOf(answer)).toBe("Splitting.All done");
    const byId = new Map(nodes(answer).map((n) => [n.id, n]));
    expect(byId.get("sub_a")).toMatchObject({
      parent_id: null,
      depth: 0,
      name: "run_subtask",
      title: "Task A",
      status: "complete",
      text: "A looksA done",
    });
    expect(byId.get("sub_b")).toMatchObject({
      parent_id: null,
      depth: 0,
      status: "complete",
      text: "B done",
    });
    expect(byId.get("echo_a")).toMatchObject({
      parent_id: "sub_a",
      depth: 1,
      name: "echo",
      status: "complete",
    });
    // The root's calls are tool parts too; a nested call is only a node (the AI SDK's parts are flat).
    const tools = (answer?.parts ?? []).filter((p) => p.type === "dynamic-tool");
    expect(tools.map((p) => [p.toolCallId, p.state])).toEqual([
      ["sub_a", "output-available"],
      ["sub_b", "output-available"],
    ]);
  });

  /** A server whose model calls a gated write_note, and a chat that has been asked to approve it. */
  async function untilApprovalRequested(chatId: string) {
    const tool = echoTool("write_note", "workspace_write");
    const respond = (request: ProviderRequest): ScriptedStep => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `result: ${last.content}${last.isError ? " (error)" : ""}` };
      return { toolCalls: [{ id: "w1", name: "write_note", args: { text: "hello" } }] };
    };
    const s = await startChatServer(respond, {
      policy: { workspaceWrite: "ask" },
      extraTools: [tool],
      auth: "token",
    });
    server = s;
    const token = await s.createToken("alice");
    const { chat } = openChat(s, chatId, token, {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: "write it" });
    const part = await until(() => {
      const p = toolPart(assistant(chat), "write_note");
      return chat.status === "ready" && p?.state === "approval-requested" ? p : undefined;
    }, "the approval request");
    expect(tool.calls).toHaveLength(0);
    expect(metadata(assistant(chat))?.status).toBe("waiting_user");
    return { tool, chat, approvalId: (part.approval as { id: string }).id };
  }

  it("refuses a call whose approval the client denied: the model gets the refusal as an error result", async () => {
    const { tool, chat, approvalId } = await untilApprovalRequested("chat-deny");
    await chat.addToolApprovalResponse({ id: approvalId, approved: false });
    await until(
      () => chat.status === "ready" && metadata(assistant(chat))?.status === "complete",
      "the turn's end",
    );
    expect(tool.calls).toEqual([]);
    expect(toolPart(assistant(chat), "write_note")).toMatchObject({ state: "output-error" });
    expect(textOf(assistant(chat))).toBe("result: The user declined to run write_note. (error)");
  });

  it("asks for an approval as tool-approval-request, and the client's approval runs the call", async () => {
    const { tool, chat, approvalId } = await untilApprovalRequested("chat-approve");
    await chat.addToolApprovalResponse({ id: approvalId, approved: true });
    await until(
      () => chat.status === "ready" && metadata(assistant(chat))?.status === "complete",
      "the turn's end",
    );
    expect(tool.calls).toEqual([{ text: "hello" }]);
    const answer = assistant(chat);
    // One assistant message throughout: the continuation went on the same message.
    expect(chat.messages.filter((m) => m.role === "assistant")).toHaveLength(1);
    expect(toolPart(answer, "write_note")).toMatchObject({ state: "output-available", output: "echo:hello" });
    expect(textOf(answer)).toBe("result: echo:hello");
  });

  it("asks a question as an ask_user tool part that the client answers with addToolOutput", async () => {
    const respond = (request: ProviderRequest): ScriptedStep => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `Painting it ${last.content}.` };
      return {
        text: "One question first.",
        toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which colour?" } }],
      };
    };
    server = await startChatServer(respond, { auth: "token" });
    const token = await server.createToken("alice");
    const received: WebSocketChatTransportResponse[] = [];
    const { chat } = openChat(
      server,
      "chat-ask",
      token,
      { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls },
      (r) => received.push(r),
    );
    await chat.sendMessage({ text: "Paint the fence" });
    const part = await until(() => {
      const p = toolPart(assistant(chat), "ask_user");
      return chat.status === "ready" && p?.state === "input-available" ? p : undefined;
    }, "the question");
    expect(part.input).toEqual({ question: "Which colour?" });
    await chat.addToolOutput({ tool: "ask_user", toolCallId: part.toolCallId, output: "blue" } as never);
    await until(
      () => chat.status === "ready" && metadata(assistant(chat))?.status === "complete",
      "the turn's end",
    );
    expect(textOf(assistant(chat))).toBe("One question first.Painting it blue.");
    expect(toolPart(assistant(chat), "ask_user")).toMatchObject({
      state: "output-available",
      output: "blue",
    });
    // The model saw the client's output as the answer to its question.
    expect(server.provider.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: "tool", content: "blue" });
    // The question's node ended with its answer: nothing in the tree is left running.
    expect(nodes(assistant(chat))).toEqual([
      { id: "ask_1", parent_id: null, depth: 0, name: "ask_user", status: "complete", text: "" },
    ]);
    // Both responses (the question's, the answer's continuation) open with `start`.
    const responses = chunkTypesByResponse(received);
    expect(responses).toHaveLength(2);
    for (const types of responses) expect(types[0]).toBe("start");
    expect(responses[1]?.slice(0, 3)).toEqual(["start", "data-agentwire-node", "tool-output-available"]);
  });

  it("a question inside a subtask: the answer ends its node, and the subtask keeps the text it streamed before it", async () => {
    const respond = (request: ProviderRequest): ScriptedStep => {
      const first = request.messages[0];
      const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
      const last = request.messages.at(-1);
      if (task === "sub:shade")
        return last?.role === "tool"
          ? { text: `Shade ${last.content}.` }
          : {
              text: "Checking. ",
              toolCalls: [{ id: "ask_in", name: "ask_user", args: { question: "Which shade?" } }],
            };
      return last?.role === "tool"
        ? { text: "Picked." }
        : {
            toolCalls: [
              { id: "sub_1", name: "run_subtask", args: { title: "Shade", instructions: "sub:shade" } },
            ],
          };
    };
    server = await startChatServer(respond, { auth: "token" });
    const token = await server.createToken("alice");
    const received: WebSocketChatTransportResponse[] = [];
    const { chat } = openChat(
      server,
      "chat-ask-nested",
      token,
      { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls },
      (r) => received.push(r),
    );
    await chat.sendMessage({ text: "Pick a shade" });
    const part = await until(() => {
      const p = toolPart(assistant(chat), "ask_user");
      return chat.status === "ready" && p?.state === "input-available" ? p : undefined;
    }, "the nested question");
    expect(nodes(assistant(chat)).find((n) => n.id === "sub_1")).toMatchObject({
      status: "running",
      text: "Checking. ",
    });
    await chat.addToolOutput({ tool: "ask_user", toolCallId: part.toolCallId, output: "teal" } as never);
    await until(
      () => chat.status === "ready" && metadata(assistant(chat))?.status === "complete",
      "the turn's end",
    );
    const answer = assistant(chat);
    expect(textOf(answer)).toBe("Picked.");
    const byId = new Map(nodes(answer).map((n) => [n.id, n]));
    expect(byId.get("ask_in")).toMatchObject({ parent_id: "sub_1", depth: 1, status: "complete" });
    // The continuation went on from the client's node: the text before the question is still there.
    expect(byId.get("sub_1")).toMatchObject({ status: "complete", text: "Checking. Shade teal." });
    expect(toolPart(answer, "ask_user")).toMatchObject({ state: "output-available", output: "teal" });
    const responses = chunkTypesByResponse(received);
    expect(responses).toHaveLength(2);
    for (const types of responses) expect(types[0]).toBe("start");
  });

  it("ends a turn over its budget with finish 'length' and the budget in the metadata", async () => {
    server = await startChatServer(
      [{ text: "Looking.", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] }, { text: "never" }],
      { auth: "token", extraTools: [echoTool()], limits: { MAX_TOTAL_LLM_CALLS: 1 } },
    );
    const token = await server.createToken("alice");
    const finishes: unknown[] = [];
    const { chat } = openChat(server, "chat-budget", token, {
      onFinish: ({ finishReason }) => {
        finishes.push(finishReason);
      },
    });
    await chat.sendMessage({ text: "look" });
    await until(() => chat.status === "ready" && finishes.length > 0, "the turn's end");
    expect(finishes).toEqual(["length"]);
    expect(metadata(assistant(chat))).toMatchObject({
      status: "budget_exceeded",
      budget_exceeded: { reason: "llm_calls", limit: 1 },
    });
  });

  it("reports a provider error as an error the chat shows, with its code", async () => {
    server = await startChatServer([{ text: "Partial ", error: "upstream overloaded" }], { auth: "token" });
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-fail", token);
    await chat.sendMessage({ text: "Hi" });
    await until(() => chat.status === "error", "the error");
    expect(chat.error?.message).toMatch(/^provider_error: /);
    expect(textOf(assistant(chat))).toBe("Partial ");
  });

  it("stops the turn on the client's stop (abort): stored as stopped with its partial answer", async () => {
    server = await startChatServer([{ text: "Once upon ", hold: "until-aborted" }], { auth: "token" });
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-stop", token);
    void chat.sendMessage({ text: "Tell a story" });
    await until(() => textOf(assistant(chat)) === "Once upon ", "the first words");
    await chat.stop();
    const turn = await until(async () => {
      const t = await server?.repos.turns.latest("alice", "chat-stop");
      return t?.status === "stopped" ? t : undefined;
    }, "the stored stop");
    expect(turn.status).toBe("stopped");
    const stored = await server.repos.messages.list("alice", "chat-stop");
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: "Once upon ", status: "stopped" });
  });

  it("resumes after the socket closed mid-turn: the replay from 0 rebuilds the same message, then live", async () => {
    const release = gate();
    // The second model call waits for the gate: the turn is mid-way when the socket closes.
    server = await startChatServer(
      [
        { text: "First half, ", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] },
        { gate: release.promise, text: "second half." },
      ],
      { auth: "token", extraTools: [echoTool()] },
    );
    const token = await server.createToken("alice");
    const first = openChat(server, "chat-resume", token);
    void first.chat.sendMessage({ text: "Go" }).catch(() => undefined);
    await until(
      () => toolPart(assistant(first.chat), "echo")?.state === "output-available",
      "the first half",
    );
    const messageId = assistant(first.chat)?.id;
    first.transport.close();
    // The turn outlives the socket; a new transport (a reloaded page) resumes it.
    const second = openChat(server, "chat-resume", token);
    const resumed = second.chat.resumeStream();
    await until(() => toolPart(assistant(second.chat), "echo")?.state === "output-available", "the replay");
    expect(textOf(assistant(second.chat))).toBe("First half, ");
    release.open();
    await resumed;
    await until(
      () => second.chat.status === "ready" && metadata(assistant(second.chat))?.status === "complete",
      "the end",
    );
    const answer = assistant(second.chat);
    expect(answer?.id).toBe(messageId);
    expect(textOf(answer)).toBe("First half, second half.");
    // An ended turn has nothing active: resume answers no-active, and the chat keeps what it has.
    const third = openChat(server, "chat-resume", token);
    await third.chat.resumeStream();
    expect(third.chat.messages).toEqual([]);
    expect(third.chat.status).toBe("ready");
  });
});

describe("/ws/ai-sdk branches: regenerate, edited history, images", () => {
  type Listed = {
    id: string;
    role: string;
    content: unknown;
    parent_message_id?: string | null;
    sibling_ids?: string[];
  };
  async function branchOf(s: ChatTestServer, token: string, threadId: string): Promise<Listed[]> {
    const response = await s.fetch(`/api/threads/${threadId}/messages`, { token });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messages?: Listed[] } | Listed[];
    return Array.isArray(body) ? body : (body.messages ?? []);
  }
  const lastUserText = (request: ProviderRequest | undefined) => {
    const users = (request?.messages ?? []).filter((m) => m.role === "user");
    const content = users.at(-1)?.content;
    return typeof content === "string" ? content : JSON.stringify(content);
  };

  it("regenerate() streams a second answer beside the first: GET messages lists both as siblings", async () => {
    server = await startChatServer([{ text: "first answer" }, { text: "second answer" }], { auth: "token" });
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-regen", token);
    await chat.sendMessage({ text: "Tell me" });
    await until(() => chat.status === "ready" && textOf(assistant(chat)) === "first answer", "the answer");

    await chat.regenerate();
    await until(
      () => chat.status === "ready" && textOf(assistant(chat)) === "second answer",
      "the new answer",
    );
    expect(chat.messages.map((m) => [m.role, m.role === "user" ? textOf(m) : textOf(m)])).toEqual([
      ["user", "Tell me"],
      ["assistant", "second answer"],
    ]);
    // The model answered the same user message again, with nothing of the old answer in its context.
    expect(server.provider.requests).toHaveLength(2);
    expect(server.provider.requests[1]?.messages.map((m) => m.role)).toEqual(["user"]);
    expect(lastUserText(server.provider.requests[1])).toBe("Tell me");

    const branch = await branchOf(server, token, "chat-regen");
    expect(branch.map((m) => [m.role, m.content])).toEqual([
      ["user", "Tell me"],
      ["assistant", "second answer"],
    ]);
    const [user, answer] = branch as [Listed, Listed];
    expect(answer.parent_message_id).toBe(user.id);
    expect(answer.sibling_ids).toHaveLength(2);
    expect(answer.sibling_ids?.[1]).toBe(answer.id);
    // The old answer is kept, on its own branch.
    const all = await server.repos.messages.list("alice", "chat-regen");
    const old = all.find((m) => m.content === "first answer");
    expect(old?.parent_message_id).toBe(user.id);
    expect(answer.sibling_ids?.[0]).toBe(old?.id);
  });

  it("an edited history (setMessages truncate + sendMessage) becomes a sibling of the edited user message", async () => {
    server = await startChatServer(
      [{ text: "A1" }, { text: "A2" }, { text: "A2 edited" }, { text: "A1 edited" }],
      {
        auth: "token",
      },
    );
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-edit", token);
    await chat.sendMessage({ text: "Q1" });
    await until(() => chat.status === "ready" && chat.messages.length === 2, "the first answer");
    await chat.sendMessage({ text: "Q2" });
    await until(() => chat.status === "ready" && chat.messages.length === 4, "the second answer");
    const stored = await branchOf(server, token, "chat-edit");
    const [q1, a1, q2] = stored as [Listed, Listed, Listed];
    expect(q2.parent_message_id).toBe(a1.id);

    // Edit Q2: what useChat does for an edit of an earlier message.
    chat.messages = chat.messages.slice(0, 2);
    await chat.sendMessage({ text: "Q2 edited" });
    await until(() => chat.status === "ready" && chat.messages.length === 4, "the edited answer");
    expect(textOf(chat.messages[3])).toBe("A2 edited");
    // The model saw Q1, A1 and the edited message: not the old Q2 and its answer.
    expect(server.provider.requests[2]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(lastUserText(server.provider.requests[2])).toBe("Q2 edited");
    let branch = await branchOf(server, token, "chat-edit");
    expect(branch.map((m) => m.content)).toEqual(["Q1", "A1", "Q2 edited", "A2 edited"]);
    const edited = branch[2] as Listed;
    expect(edited.parent_message_id).toBe(a1.id);
    expect(edited.sibling_ids).toEqual([q2.id, edited.id]);

    // Edit the first message through the AI SDK's own replace (sendMessage with messageId): a new first message.
    const firstId = chat.messages[0]?.id as string;
    await chat.sendMessage({ text: "Q1 edited", messageId: firstId });
    await until(() => chat.status === "ready" && chat.messages.length === 2, "the new first answer");
    expect(textOf(chat.messages[1])).toBe("A1 edited");
    expect(server.provider.requests[3]?.messages.map((m) => m.role)).toEqual(["user"]);
    branch = await branchOf(server, token, "chat-edit");
    expect(branch.map((m) => m.content)).toEqual(["Q1 edited", "A1 edited"]);
    expect(branch[0]?.parent_message_id ?? null).toBeNull();
    expect(branch[0]?.sibling_ids).toEqual([q1.id, branch[0]?.id]);
  });

  it("passes image file parts on as image content: the stored row and the model's request have them", async () => {
    server = await startChatServer([{ text: "a red dot" }, { text: "a cat" }], { auth: "token" });
    const token = await server.createToken("alice");
    const { chat } = openChat(server, "chat-image", token);
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await chat.sendMessage({
      text: "What is this?",
      files: [{ type: "file", mediaType: "image/png", url: `data:image/png;base64,${png}` }],
    });
    await until(() => chat.status === "ready" && textOf(assistant(chat)) === "a red dot", "the answer");
    await chat.sendMessage({
      files: [{ type: "file", mediaType: "image/jpeg", url: "https://example.com/cat.jpg" }],
    });
    await until(() => chat.status === "ready" && chat.messages.length === 4, "the second answer");
    const stored = await server.repos.messages.list("alice", "chat-image");
    expect(stored.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      [
        { type: "image", data: png, mime_type: "image/png" },
        { type: "text", text: "What is this?" },
      ],
      [{ type: "image", uri: "https://example.com/cat.jpg", mime_type: "image/jpeg" }],
    ]);
    // The model's request carries the image, not just the text.
    expect(JSON.stringify(server.provider.requests[0]?.messages)).toContain(png);
    expect(JSON.stringify(server.provider.requests[1]?.messages)).toContain("https://example.com/cat.jpg");
    // A file that is not an image is refused, not dropped.
    await chat.sendMessage({
      text: "read this",
      files: [{ type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBERi0=" }],
    });
    await until(() => chat.status === "error", "the refusal");
    expect(chat.error?.message).toMatch(/^bad_request: a file part of type application\/pdf/);
    expect(server.provider.requests).toHaveLength(2);
  });
});

describe("/ws/ai-sdk refuses bad input with an error frame and stores nothing", () => {
  /** A raw socket to the edge, to send what the transport never would. */
  async function rawSocket(s: ChatTestServer, token: string) {
    const ws = new WebSocket(`${s.httpUrl.replace(/^http/, "ws")}/ws/ai-sdk`, [
      "agentwire.v1",
      `agentwire.bearer.${token}`,
    ]);
    const frames: Record<string, unknown>[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return { ws, frames };
  }
  const send = (id: string, text: string) => ({
    type: "send",
    requestId: `r-${id}`,
    id,
    trigger: "submit-message",
    messageId: undefined,
    messages: [{ id: "u1", role: "user", parts: [{ type: "text", text }] }],
    headers: {},
    body: {},
    metadata: undefined,
  });

  it("answers an invalid frame, another user's chat id and an over-size message on their request, storing nothing", async () => {
    server = await startChatServer([{ text: "mine" }], { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const a = openChat(server, "chat-alice", alice);
    await a.chat.sendMessage({ text: "Hi" });
    await until(() => a.chat.status === "ready" && textOf(assistant(a.chat)) === "mine", "alice's answer");
    const before = {
      threads: await server.countRows("threads"),
      messages: await server.countRows("messages"),
    };

    const { ws, frames } = await rawSocket(server, bob);
    ws.send(JSON.stringify({ type: "send", requestId: "r-bad", id: "x", messages: "nope" }));
    ws.send(JSON.stringify({ ...send("bad id!", "hi"), requestId: "r-badid" }));
    ws.send(JSON.stringify(send("chat-alice", "let me in")));
    ws.send(JSON.stringify(send("chat-big", "x".repeat(100_001))));
    ws.send(JSON.stringify(send("chat-blank", "   ")));
    await until(() => frames.length >= 5, "five answers");
    const byRequest = new Map(frames.map((f) => [f.requestId, f]));
    for (const id of ["r-bad", "r-badid", "r-chat-alice", "r-chat-big", "r-chat-blank"])
      expect(byRequest.get(id)).toMatchObject({ type: "error", errorText: expect.any(String) });
    expect(String(byRequest.get("r-bad")?.errorText)).toMatch(/^bad_request: /);
    expect(String(byRequest.get("r-chat-alice")?.errorText)).toMatch(/^forbidden: /);
    expect(String(byRequest.get("r-chat-big")?.errorText)).toMatch(/longer than 100000 characters/);
    // Nothing stored for bob, alice's thread untouched.
    expect(await server.repos.threads.list("bob")).toEqual([]);
    expect({
      threads: await server.countRows("threads"),
      messages: await server.countRows("messages"),
    }).toEqual(before);
    expect(server.provider.requests).toHaveLength(1);
    // Bob cannot follow alice's chat either: it has nothing active for him.
    ws.send(JSON.stringify({ type: "resume", requestId: "r-peek", id: "chat-alice", headers: {}, body: {} }));
    await until(() => frames.some((f) => f.requestId === "r-peek"), "the resume's answer");
    expect(frames.find((f) => f.requestId === "r-peek")).toEqual({ type: "no-active", requestId: "r-peek" });
    ws.close();
  });

  it("refuses an upgrade without a token, and one over the user's socket cap (counted with /ws), as /ws does", async () => {
    server = await startChatServer([], { auth: "token", serverLimits: { maxConnectionsPerUser: 1 } });
    const url = `${server.httpUrl.replace(/^http/, "ws")}/ws/ai-sdk`;
    const upgrade = (protocols?: string[]) =>
      new Promise<number | undefined>((resolve) => {
        const ws = new WebSocket(url, protocols);
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode));
        ws.once("open", () => {
          resolve(101);
          ws.close();
        });
      });
    expect(await upgrade()).toBe(401);
    const token = await server.createToken("alice");
    const native = await server.connect({ token, carrier: "subprotocol" });
    expect(await upgrade(["agentwire.v1", `agentwire.bearer.${token}`])).toBe(429);
    native.ws.close();
    await until(
      async () => (await upgrade(["agentwire.v1", `agentwire.bearer.${token}`])) === 101 || undefined,
      "a free slot",
    );
  });
});

import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { PlanExecutionMode } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { ContextScopes, parseContextScopes, type ToolScope } from "../../src/index.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const toolNames = (s: ChatTestServer, call: number) =>
  s.provider.requests[call]?.tools.map((t) => t.name) ?? [];

const scopes = ContextScopes.from({
  scopes: {
    research: {
      guidance: "Cite a source for every claim.",
      tools: { remove: ["run_subtask"] },
      plan_mode: "draft_only",
    },
    tight: { budget: { MAX_TOTAL_LLM_CALLS: 1 } },
    canvas: { base: "editor", guidance: "You edit a canvas." },
    widened: { tools: { add: ["ui_safe", "ui_mutate"] } },
    thread: { guidance: "Built-in thread guidance." },
  },
});

describe("context scopes", () => {
  it("a scope's guidance reaches the system prompt, its removal takes a tool out, its plan mode reaches the tools' scope", async () => {
    const seen: (PlanExecutionMode | undefined)[] = [];
    server = await startChatServer([{ text: "researched" }, { text: "plain" }], {
      serverTools: async (scope: ToolScope) => {
        seen.push(scope.planMode);
        return [echoTool("lookup")];
      },
    });
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "find it", chat_context: { kind: "research" } });
    expectWellFormedTurn(await client.collectUntil(isDone));
    client.command("chat_message", { content: "chat" });
    expectWellFormedTurn(await client.collectUntil(isDone));

    const [research, plain] = server.provider.requests as ProviderRequest[];
    expect(research?.systemPrompt).toContain("Cite a source for every claim.");
    expect(toolNames(server, 0)).toContain("lookup");
    expect(toolNames(server, 0)).toContain("send_update");
    // A built-in scope may be given guidance too; the research guidance stays in its own scope.
    expect(plain?.systemPrompt).toContain("Built-in thread guidance.");
    expect(plain?.systemPrompt).not.toContain("Cite a source");
    expect(seen).toEqual(["draft_only", undefined]);
  });

  it("run_subtask removed by the scope is not in the toolbelt (and the prompt does not offer it)", async () => {
    server = await startChatServer([{ text: "researched" }, { text: "plain" }]);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "find it", chat_context: { kind: "research" } });
    await client.collectUntil(isDone);
    client.command("chat_message", { content: "chat" });
    await client.collectUntil(isDone);
    expect(toolNames(server, 0)).not.toContain("run_subtask");
    expect(toolNames(server, 0)).toContain("ask_user");
    expect(server.provider.requests[0]?.systemPrompt).not.toContain("run_subtask");
    expect(toolNames(server, 1)).toContain("run_subtask");
  });

  it("a scope's budget stops its turn at the lower limit; the same work in thread scope finishes", async () => {
    const work: ScriptedStep[] = [
      { toolCalls: [{ id: "e_1", name: "echo", args: { text: "a" } }] },
      { text: "finished" },
    ];
    server = await startChatServer([...work, ...work], { extraTools: [echoTool("echo")] });
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "work", chat_context: { kind: "tight" } });
    const tight = await client.collectUntil(isDone);
    expect(tight.find((f) => f.type === "budget_exceeded")).toMatchObject({ reason: "llm_calls", limit: 1 });
    expect(server.provider.requests).toHaveLength(1);

    client.command("chat_message", { content: "work" });
    const free = await client.collectUntil(isDone);
    expect(free.some((f) => f.type === "budget_exceeded")).toBe(false);
    expect(free.some((f) => f.type === "chunk" && f.content === "finished")).toBe(true);
  });

  it("an unknown kind is bad_request and stores nothing", async () => {
    server = await startChatServer([{ text: "never" }]);
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "hi", chat_context: { kind: "nowhere" } }, "r1");
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "r1" });
    expect(error.message).toContain('"nowhere"');
    for (const table of ["threads", "messages", "turns"]) expect(await server.countRows(table)).toBe(0);
    expect(server.provider.requests).toHaveLength(0);
  });

  it("editor still works; an editor-based scope gets the editor tools; add brings editor tools to a thread base", async () => {
    server = await startChatServer([{ text: "e" }, { text: "c" }, { text: "w" }, { text: "t" }], {
      editorTools: [echoTool("ui_safe"), echoTool("ui_mutate", "editor_mutate")],
    });
    server.chat.scopes = scopes;
    const client = await server.connect();
    const send = async (chat_context: object) => {
      client.command("chat_message", { content: "go", chat_context });
      expectWellFormedTurn(await client.collectUntil(isDone));
    };
    await send({ kind: "editor", workflow_id: "wf_1" });
    await send({ kind: "canvas" });
    await send({ kind: "widened" });
    await send({ kind: "thread" });
    expect(toolNames(server, 0)).toEqual(expect.arrayContaining(["ui_safe", "ui_mutate"]));
    expect(toolNames(server, 1)).toEqual(expect.arrayContaining(["ui_safe", "ui_mutate"]));
    expect(server.provider.requests[1]?.systemPrompt).toContain("You edit a canvas.");
    // Thread base: editor_mutate is off in the thread policy, but a tool the scope adds by name runs
    // under the editor's rule for its class.
    expect(toolNames(server, 2)).toEqual(expect.arrayContaining(["ui_safe", "ui_mutate"]));
    expect(toolNames(server, 3)).not.toContain("ui_safe");
  });

  it("a turn waiting on the user keeps its scope when it resumes", async () => {
    server = await startChatServer((request) =>
      request.messages.some((m) => m.role === "tool")
        ? { text: "thanks" }
        : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which?" } }] },
    );
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "ask", chat_context: { kind: "research" } });
    const thread = await client.next("thread");
    await client.next("question");
    client.command("answer", { thread_id: thread.thread_id, tool_call_id: "ask_1", answer: "this" });
    await client.collectUntil(isDone);
    expect(server.provider.requests).toHaveLength(2);
    expect(toolNames(server, 1)).not.toContain("run_subtask");
    expect(toolNames(server, 1)).toContain("ask_user");
  });
});

describe("parseContextScopes (CONTEXT_SCOPES_FILE)", () => {
  it("names every bad field", () => {
    const bad = parseContextScopes({
      scopes: {
        research: { budget: { MAX_TOTAL_LLM_CALLS: 0, MAX_NOTHING: 1 }, plan_mode: "sometimes" },
        "Bad Name": {},
      },
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.message).toContain("scopes.research.budget.MAX_TOTAL_LLM_CALLS");
    expect(bad.message).toContain("MAX_NOTHING");
    expect(bad.message).toContain("scopes.research.plan_mode");
    expect(bad.message).toContain("Bad Name");
  });

  it("keeps the built-ins' bases and defaults a new scope to the thread base", () => {
    expect(parseContextScopes({ scopes: { editor: { base: "thread" } } })).toMatchObject({ ok: false });
    const ok = parseContextScopes({ scopes: { notes: {} } });
    expect(ok.ok && ok.value.get("notes")?.base).toBe("thread");
    expect(ok.ok && ok.value.kinds().sort()).toEqual(["editor", "notes", "thread"]);
  });
});

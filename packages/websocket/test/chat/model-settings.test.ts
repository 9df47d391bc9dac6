import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { script as planScript } from "@agentwire-chat/testkit/plan-script";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { ContextScopes, parseModelSettingsTable } from "../../src/index.js";
import {
  settings as contextSettings,
  isSummarizer,
  seedThread,
  summaryStep,
} from "../context/context-fixtures.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TUNED = {
  temperature: 0.2,
  max_output_tokens: 512,
  reasoning_effort: "low",
  parallel_tool_calls: false,
};
/** What every call of a turn in the `tuned` scope sends: max_output_tokens as maxTokens, the rest as settings. */
const tunedRequest = {
  maxTokens: 512,
  settings: { temperature: 0.2, reasoning_effort: "low", parallel_tool_calls: false },
};

const scopes = ContextScopes.from({
  scopes: {
    tuned: { model_settings: TUNED as never },
    cool: { model_settings: { temperature: 0.1 } },
  },
});

function table(models: Record<string, unknown>) {
  const parsed = parseModelSettingsTable({ models });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

const said = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "user" ? contentText(last.content) : "";
};
const isSubAgent = (r: ProviderRequest) => r.systemPrompt.startsWith("You are a focused sub-agent");
const isPlanner = (r: ProviderRequest) => r.systemPrompt.startsWith("You are a planner");

/** The settings part of each request, for one assertion over all of them. */
const settingsOf = (requests: readonly ProviderRequest[]) =>
  requests.map((r) => ({
    ...(r.maxTokens !== undefined && { maxTokens: r.maxTokens }),
    ...(r.settings !== undefined && { settings: r.settings }),
  }));

async function turnIn(s: ChatTestServer, data: Record<string, unknown>): Promise<ServerFrame[]> {
  const client = await s.connect();
  client.command("chat_message", data);
  const frames = await client.collectUntil(isDone);
  client.close();
  return frames;
}

describe("model settings per scope and per model", () => {
  it("a scope's settings reach every call of its turns: the root, a subtask, the planner and the plan's steps", async () => {
    server = await startChatServer((r): ScriptedStep => {
      if (
        isPlanner(r) ||
        said(r).startsWith("make a report") ||
        (isSubAgent(r) && !said(r).startsWith("dig"))
      )
        return planScript(r);
      if (isSubAgent(r)) return { text: "dug" };
      if (r.messages.at(-1)?.role === "tool") return { text: "done" };
      return {
        toolCalls: [{ id: "s1", name: "run_subtask", args: { title: "Dig", instructions: "dig deep" } }],
      };
    });
    server.chat.scopes = scopes;
    expectWellFormedTurn(await turnIn(server, { content: "dig", chat_context: { kind: "tuned" } }));
    const subtask = server.provider.requests.length;
    expectWellFormedTurn(
      await turnIn(server, { content: "make a report (auto_execute)", chat_context: { kind: "tuned" } }),
    );
    const requests = server.provider.requests;
    // root → subtask → root; then root → planner → three steps → root.
    expect(subtask).toBe(3);
    expect(requests.filter(isSubAgent).length).toBeGreaterThanOrEqual(4);
    expect(requests.filter(isPlanner)).toHaveLength(1);
    expect(settingsOf(requests)).toEqual(requests.map(() => tunedRequest));

    // The same work in the plain thread scope sends no settings at all.
    const before = requests.length;
    expectWellFormedTurn(await turnIn(server, { content: "dig" }));
    expect(settingsOf(requests.slice(before))).toEqual([{}, {}, {}]);
  });

  it("the model's table entry applies, <provider>:<model> beats <model>, and a scope's settings replace it key by key", async () => {
    server = await startChatServer(() => ({ text: "ok" }));
    server.chat.scopes = scopes;
    server.chat.modelSettings = table({ "scripted-1": { temperature: 0.9, max_output_tokens: 300 } });
    await turnIn(server, { content: "bare" });
    server.chat.modelSettings = table({
      "scripted-1": { temperature: 0.9, max_output_tokens: 300 },
      "scripted:scripted-1": { temperature: 0.6, max_output_tokens: 700, reasoning_effort: "high" },
      "other-model": { temperature: 0 },
    });
    await turnIn(server, { content: "qualified" });
    await turnIn(server, { content: "cool", chat_context: { kind: "cool" } });
    expect(settingsOf(server.provider.requests)).toEqual([
      { maxTokens: 300, settings: { temperature: 0.9 } },
      { maxTokens: 700, settings: { temperature: 0.6, reasoning_effort: "high" } },
      { maxTokens: 700, settings: { temperature: 0.1, reasoning_effort: "high" } },
    ]);
  });

  it("a chat_message cannot set them: the fields are refused and nothing is called", async () => {
    server = await startChatServer(() => ({ text: "never" }));
    const client = await server.connect();
    for (const [id, extra] of [
      ["r1", { model_settings: { temperature: 2 } }],
      ["r2", { temperature: 2 }],
      ["r3", { chat_context: { kind: "thread", model_settings: { temperature: 2 } } }],
    ] as const) {
      client.command("chat_message", { content: "hot", ...extra }, id);
      const [error] = await client.collectUntil((f) => f.type === "error");
      expect(error).toMatchObject({ type: "error", code: "bad_request", request_id: id });
    }
    expect(server.provider.requests).toHaveLength(0);
  });

  it("a turn resumed after the user's answer, at the root and inside a subtask, keeps its scope's settings", async () => {
    server = await startChatServer((r): ScriptedStep => {
      const last = r.messages.at(-1);
      if (isSubAgent(r)) {
        if (last?.role === "tool") return { text: `sub heard ${last.content}` };
        return { toolCalls: [{ id: "ask_sub", name: "ask_user", args: { question: "Which size?" } }] };
      }
      if (last?.role === "tool" && last.name === "ask_user")
        return {
          toolCalls: [{ id: "s1", name: "run_subtask", args: { title: "Ask", instructions: "ask" } }],
        };
      if (last?.role === "tool") return { text: "all done" };
      return { toolCalls: [{ id: "ask_root", name: "ask_user", args: { question: "Which color?" } }] };
    });
    server.chat.scopes = scopes;
    const client = await server.connect();
    client.command("chat_message", { content: "ask me", chat_context: { kind: "tuned" } });
    const asked = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const threadId = (asked.find((f) => "thread_id" in f && f.thread_id) as { thread_id: string }).thread_id;
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_root", answer: "blue" });
    await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_sub", answer: "large" });
    const end = await client.collectUntil(isDone);
    expect(end.some((f) => f.type === "chunk" && f.content === "all done")).toBe(true);
    const requests = server.provider.requests;
    // root asks | root → subtask asks | subtask resumed, root resumed.
    expect(requests).toHaveLength(5);
    expect(said(requests[2] as ProviderRequest)).toBe("ask");
    expect(requests[3]?.messages.at(-1)).toMatchObject({ role: "tool", content: "large" });
    expect(settingsOf(requests)).toEqual(requests.map(() => tunedRequest));
  });

  it("a turn continued from its checkpoint after a budget stop keeps its scope's settings", async () => {
    server = await startChatServer(
      [{ toolCalls: [{ id: "e1", name: "echo", args: { text: "a" } }] }, { text: "finished" }],
      { extraTools: [echoTool("echo")], limits: { MAX_TOTAL_LLM_CALLS: 1 } },
    );
    server.chat.scopes = scopes;
    const first = await turnIn(server, { content: "work", chat_context: { kind: "tuned" } });
    expect(first.find((f) => f.type === "budget_exceeded")).toMatchObject({ reason: "llm_calls" });
    const threadId = (first.find((f) => "thread_id" in f && f.thread_id) as { thread_id: string }).thread_id;
    const client = await server.connect();
    client.command("continue_turn", { thread_id: threadId });
    const second = await client.collectUntil(isDone);
    expect(second.some((f) => f.type === "chunk" && f.content === "finished")).toBe(true);
    expect(server.provider.requests).toHaveLength(2);
    expect(settingsOf(server.provider.requests)).toEqual([tunedRequest, tunedRequest]);
  });

  it("the summarizer runs with its own model's table entry, not the turn's scope", async () => {
    server = await startChatServer((r) =>
      isSummarizer(r)
        ? summaryStep("S1: earlier questions")
        : { text: "ok", usage: { inputTokens: 100, outputTokens: 10 } },
    );
    server.chat.context = contextSettings({ CONTEXT_MAX_TOKENS: 4_000 });
    server.chat.scopes = ContextScopes.from({ scopes: { thread: { model_settings: { temperature: 1 } } } });
    server.chat.modelSettings = table({ "scripted-1": { temperature: 0.3, max_output_tokens: 900 } });
    const { threadId } = await seedThread(server, 50);
    await turnIn(server, { content: "next question", thread_id: threadId });
    const requests = server.provider.requests;
    const summarizer = requests.filter(isSummarizer);
    expect(summarizer).toHaveLength(1);
    expect(settingsOf(summarizer)).toEqual([{ maxTokens: 900, settings: { temperature: 0.3 } }]);
    expect(settingsOf(requests.filter((r) => !isSummarizer(r)))).toEqual([
      { maxTokens: 900, settings: { temperature: 1 } },
    ]);
  });
});

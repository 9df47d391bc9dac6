import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderRequest } from "../../src/index.js";
import { collect, request } from "./helpers/collect.js";
import { WEATHER_TOOL } from "./helpers/history.js";
import {
  chatSse,
  type MockLlmServer,
  messagesSse,
  sse,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { anthropicAt, openaiAt } from "./helpers/providers.js";

const CHAT_DONE = chatSse([
  { id: "c", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] },
]);
const MESSAGES_DONE = messagesSse([
  { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
  { type: "message_stop" },
] as { type: string }[]);

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function chatBody(req: ProviderRequest): Promise<Record<string, unknown>> {
  server.reply(sse(CHAT_DONE));
  await collect(openaiAt(server.url), req);
  return server.requests.at(-1)!.body as Record<string, unknown>;
}

async function messagesBody(
  req: ProviderRequest,
  thinkingBudgetTokens?: number,
): Promise<Record<string, unknown>> {
  server.reply(sse(MESSAGES_DONE));
  await collect(anthropicAt(server.url, thinkingBudgetTokens ? { thinkingBudgetTokens } : {}), req);
  return server.requests.at(-1)!.body as Record<string, unknown>;
}

describe("model settings in Chat Completions bodies", () => {
  it("temperature, reasoning_effort, parallel_tool_calls and max tokens with tools", async () => {
    const body = await chatBody(
      request({
        tools: [WEATHER_TOOL],
        maxTokens: 300,
        settings: { temperature: 0.2, reasoning_effort: "minimal", parallel_tool_calls: false },
      }),
    );
    expect(body).toMatchObject({
      temperature: 0.2,
      reasoning_effort: "minimal",
      parallel_tool_calls: false,
      max_completion_tokens: 300,
    });
  });

  it("parallel_tool_calls only with tools; nothing set, nothing sent", async () => {
    const noTools = await chatBody(request({ settings: { parallel_tool_calls: true, temperature: 0 } }));
    expect(noTools).not.toHaveProperty("parallel_tool_calls");
    expect(noTools.temperature).toBe(0);
    const bare = await chatBody(request({ tools: [WEATHER_TOOL] }));
    for (const key of ["temperature", "reasoning_effort", "parallel_tool_calls", "max_completion_tokens"])
      expect(bare).not.toHaveProperty(key);
  });
});

describe("model settings in Anthropic Messages bodies", () => {
  it("temperature without thinking; parallel_tool_calls false → disable_parallel_tool_use; max_tokens", async () => {
    const body = await messagesBody(
      request({
        tools: [WEATHER_TOOL],
        maxTokens: 700,
        settings: { temperature: 0.3, parallel_tool_calls: false },
      }),
    );
    expect(body).toMatchObject({
      temperature: 0.3,
      max_tokens: 700,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(body).not.toHaveProperty("thinking");
  });

  it("reasoning_effort picks the thinking budget; temperature is dropped with thinking on", async () => {
    const high = await messagesBody(request({ settings: { reasoning_effort: "high", temperature: 0.5 } }));
    // No limit set: the budget goes on top of the default 8192 so the answer keeps its room.
    expect(high).toMatchObject({
      max_tokens: 8192 + 16384,
      thinking: { type: "enabled", budget_tokens: 16384 },
    });
    expect(high).not.toHaveProperty("temperature");
    const low = await messagesBody(request({ settings: { reasoning_effort: "low" } }));
    expect(low.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    const medium = await messagesBody(
      request({ maxTokens: 20_000, settings: { reasoning_effort: "medium" } }),
    );
    expect(medium).toMatchObject({ max_tokens: 20_000, thinking: { type: "enabled", budget_tokens: 4096 } });
  });

  it("the budget stays below max_tokens; too little room or minimal leaves thinking off", async () => {
    const cut = await messagesBody(request({ maxTokens: 5000, settings: { reasoning_effort: "high" } }));
    expect(cut).toMatchObject({ max_tokens: 5000, thinking: { type: "enabled", budget_tokens: 3976 } });
    const tight = await messagesBody(
      request({ maxTokens: 1500, settings: { reasoning_effort: "high", temperature: 1.2 } }),
    );
    expect(tight).not.toHaveProperty("thinking");
    expect(tight.temperature).toBe(1.2);
    // minimal overrides the provider's configured budget: thinking off, temperature kept.
    const minimal = await messagesBody(
      request({ settings: { reasoning_effort: "minimal", temperature: 0.1 } }),
      2048,
    );
    expect(minimal).not.toHaveProperty("thinking");
    expect(minimal).toMatchObject({ max_tokens: 8192, temperature: 0.1 });
  });

  it("parallel_tool_calls without tools sends no tool_choice", async () => {
    const body = await messagesBody(request({ settings: { parallel_tool_calls: false } }));
    expect(body).not.toHaveProperty("tool_choice");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

const CHAT_DONE = sse(
  chatSse([{ id: "c", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }]),
);
const MESSAGES_DONE = sse(
  messagesSse([
    { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
    { type: "message_stop" },
  ] as { type: string }[]),
);

/** The body the server received for one call. */
async function bodyOf(call: () => Promise<unknown>): Promise<Record<string, unknown>> {
  const before = server.requests.length;
  await call();
  return server.requests[before]!.body as Record<string, unknown>;
}

describe("model settings in Chat Completions request bodies", () => {
  it("sends temperature, reasoning_effort and parallel_tool_calls as set, and the cap as max_completion_tokens", async () => {
    server.reply(CHAT_DONE);
    const body = await bodyOf(() =>
      collect(
        openaiAt(server.url),
        request({
          tools: [WEATHER_TOOL],
          maxTokens: 321,
          settings: { temperature: 0.2, reasoning_effort: "minimal", parallel_tool_calls: false },
        }),
      ),
    );
    expect(body).toMatchObject({
      temperature: 0.2,
      reasoning_effort: "minimal",
      parallel_tool_calls: false,
      max_completion_tokens: 321,
    });
  });

  it("sends none of them when none is set, and no parallel_tool_calls without tools (OpenAI refuses it)", async () => {
    server.reply(CHAT_DONE, CHAT_DONE);
    const plain = await bodyOf(() => collect(openaiAt(server.url), request({ tools: [WEATHER_TOOL] })));
    for (const key of ["temperature", "reasoning_effort", "parallel_tool_calls", "max_completion_tokens"])
      expect(plain).not.toHaveProperty(key);
    const toolless = await bodyOf(() =>
      collect(openaiAt(server.url), request({ settings: { parallel_tool_calls: true, temperature: 0 } })),
    );
    expect(toolless).not.toHaveProperty("parallel_tool_calls");
    expect(toolless.temperature).toBe(0);
  });
});

describe("model settings in Anthropic request bodies", () => {
  it("temperature as set; parallel_tool_calls false becomes disable_parallel_tool_use", async () => {
    server.reply(MESSAGES_DONE);
    const body = await bodyOf(() =>
      collect(
        anthropicAt(server.url, { promptCache: false }),
        request({ tools: [WEATHER_TOOL], settings: { temperature: 0.7, parallel_tool_calls: false } }),
      ),
    );
    expect(body).toMatchObject({
      temperature: 0.7,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      max_tokens: 8192,
    });
    expect(body).not.toHaveProperty("thinking");
  });

  it("reasoning_effort sets the thinking budget, on top of the default answer length, and drops the temperature", async () => {
    server.reply(MESSAGES_DONE, MESSAGES_DONE, MESSAGES_DONE);
    const high = await bodyOf(() =>
      collect(anthropicAt(server.url), request({ settings: { reasoning_effort: "high", temperature: 0.5 } })),
    );
    expect(high.thinking).toEqual({ type: "enabled", budget_tokens: 24_576 });
    expect(high.max_tokens).toBe(8192 + 24_576);
    // The API refuses a temperature with thinking on.
    expect(high).not.toHaveProperty("temperature");
    const low = await bodyOf(() =>
      collect(anthropicAt(server.url), request({ maxTokens: 4000, settings: { reasoning_effort: "low" } })),
    );
    // The operator's cap stays the cap; the budget fits below it.
    expect(low).toMatchObject({ max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2048 } });
    const minimal = await bodyOf(() =>
      collect(
        anthropicAt(server.url, { thinkingBudgetTokens: 4096 }),
        request({ settings: { reasoning_effort: "minimal", temperature: 0.1 } }),
      ),
    );
    // `minimal` turns thinking off, even over the server-wide budget; the temperature then goes through.
    expect(minimal).not.toHaveProperty("thinking");
    expect(minimal).toMatchObject({ max_tokens: 8192, temperature: 0.1 });
  });

  it("a budget that does not fit under the operator's cap leaves thinking off", async () => {
    server.reply(MESSAGES_DONE);
    const body = await bodyOf(() =>
      collect(
        anthropicAt(server.url),
        request({ maxTokens: 2000, settings: { reasoning_effort: "medium" } }),
      ),
    );
    expect(body.max_tokens).toBe(2000);
    expect(body).not.toHaveProperty("thinking");
  });
});

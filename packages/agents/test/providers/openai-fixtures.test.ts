import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import { dataLines, readFixture } from "./helpers/fixtures.js";
import { type MockLlmServer, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { openaiAt } from "./helpers/providers.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function replay(fixture: string) {
  server.reply(sse(readFixture(fixture), { "x-request-id": "req_fixture" }));
  return collect(openaiAt(server.url), request());
}

describe("OpenAI adapter replaying recorded Chat Completions streams", () => {
  it("openai_chat_text.sse: every text delta in order, usage from the final chunk, stop", async () => {
    const events = await replay("openai_chat_text.sse");
    const expected = dataLines(readFixture("openai_chat_text.sse"))
      .flatMap((c) => (c.choices as { delta?: { content?: string } }[]).map((ch) => ch.delta?.content ?? ""))
      .join("");
    expect(expected.length).toBeGreaterThan(500);
    expect(textOf(events)).toBe(expected);
    expect(ofType(events, "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, reasoningTokens: 0 },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(ofType(events, "tool-call")).toEqual([]);
  });

  it("openai_chat_finish_length.sse: finish reason length", async () => {
    const events = await replay("openai_chat_finish_length.sse");
    expect(textOf(events)).toBe('{"');
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 79,
      outputTokens: 1,
      reasoningTokens: 0,
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  it("openai_chat_single_tool.sse: one call assembled from many argument deltas", async () => {
    const events = await replay("openai_chat_single_tool.sse");
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "call_c91SqDXlYFuETYv8mUHzz6pp",
        name: "GetWeatherArgs",
        args: { city: "Edinburgh", country: "UK", units: "c" },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("openai_chat_single_tool_include_usage.sse: usage:null on every chunk, usage once at the end", async () => {
    const events = await replay("openai_chat_single_tool_include_usage.sse");
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "call_Vz0Sie91Ap56nH0ThKGrZXT7",
        name: "get_weather",
        args: { city: "Mexico City" },
      },
    ]);
    expect(ofType(events, "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 423, outputTokens: 15, cacheReadTokens: 0, reasoningTokens: 0 },
      },
    ]);
  });

  it("openai_chat_parallel_tools.sse: two parallel calls, tool calls before usage before finish", async () => {
    const events = await replay("openai_chat_parallel_tools.sse");
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "call_JMW1whyEaYG438VE1OIflxA2",
        name: "GetWeatherArgs",
        args: { city: "Edinburgh", country: "GB", units: "c" },
      },
      {
        type: "tool-call",
        id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
        name: "get_stock_price",
        args: { ticker: "AAPL", exchange: "NASDAQ" },
      },
    ]);
    expect(events.map((e) => e.type)).toEqual(["tool-call", "tool-call", "usage", "finish"]);
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 149,
      outputTokens: 60,
      reasoningTokens: 0,
    });
  });

  it("openai_chat_parallel_tools_include_usage.sse: two calls with whole '{}' arguments", async () => {
    const events = await replay("openai_chat_parallel_tools_include_usage.sse");
    expect(ofType(events, "tool-call")).toEqual([
      { type: "tool-call", id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", name: "get_country", args: {} },
      { type: "tool-call", id: "call_b51ijcpFkDiTQG1bQzsrmtW5", name: "get_product_name", args: {} },
    ]);
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 364,
      outputTokens: 40,
      cacheReadTokens: 0,
      reasoningTokens: 0,
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("openai_chat_usage_chunks.txt: cached_tokens and reasoning_tokens reach the usage event", async () => {
    const usageLines = readFixture("openai_chat_usage_chunks.txt")
      .split("\n")
      .filter((l) => l.startsWith("data: "));
    const assembled = usageLines.at(-1)!; // example 6: cache hit and reasoning
    const body = `data: ${JSON.stringify({ id: "x", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] })}\n\n${assembled}\n\ndata: [DONE]\n\n`;
    server.reply(sse(body));
    const events = await collect(openaiAt(server.url), request());
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 2006,
      outputTokens: 300,
      cacheReadTokens: 1920,
      reasoningTokens: 128,
    });
  });
});

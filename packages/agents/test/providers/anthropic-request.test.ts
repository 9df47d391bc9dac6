import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantModelMessage, ThinkingBlock } from "../../src/index.js";
import { collect, ofType, request } from "./helpers/collect.js";
import { readFixture } from "./helpers/fixtures.js";
import { HISTORY, WEATHER_TOOL } from "./helpers/history.js";
import { type MockLlmServer, messagesSse, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { anthropicAt, TEST_ANTHROPIC_KEY } from "./helpers/providers.js";

const DONE = messagesSse([
  { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
  { type: "message_stop" },
] as { type: string }[]);

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

describe("Anthropic request mapping (the body the server receives)", () => {
  it("system on top, thinking first and unchanged, tool results as one user message merged with the next", async () => {
    server.reply(sse(DONE));
    // The cache breakpoints have tests of their own (anthropic-cache.test.ts).
    await collect(
      anthropicAt(server.url, { promptCache: false }),
      request({ messages: HISTORY, tools: [WEATHER_TOOL] }),
    );
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe(TEST_ANTHROPIC_KEY);
    expect(sent.body).toEqual({
      model: "test-model",
      max_tokens: 8192,
      stream: true,
      system: "You are terse.",
      tools: [
        { name: "get_weather", description: "Weather for a city", input_schema: WEATHER_TOOL.inputSchema },
      ],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Weather in Paris and Rome? Also, what is in this picture?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Two cities, two calls.", signature: "sig-EvMCCkYICxgC/+=" },
            { type: "redacted_thinking", data: "redacted-blob==" },
            { type: "text", text: "Checking both." },
            { type: "tool_use", id: "call_paris", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_rome", name: "get_weather", input: { city: "Rome" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_paris", content: "paris: timeout", is_error: true },
            { type: "tool_result", tool_use_id: "call_rome", content: "rome: 24C" },
            { type: "text", text: "And tomorrow?" },
          ],
        },
      ],
    });
  });

  it("merges consecutive user turns, drops empty text, sanitises foreign tool ids, enables thinking", async () => {
    server.reply(sse(DONE));
    await collect(
      anthropicAt(server.url, { thinkingBudgetTokens: 2048, promptCache: false }),
      request({
        systemPrompt: "",
        maxTokens: 4096,
        messages: [
          { role: "user", content: "one" },
          {
            role: "user",
            content: [{ type: "image", uri: "https://x.test/a.jpg", mime_type: "image/jpeg" }],
          },
          {
            role: "assistant",
            text: "",
            toolCalls: [{ id: "chatcmpl-tool.1:a", name: "get_weather", args: null }],
          },
          { role: "tool", toolCallId: "chatcmpl-tool.1:a", name: "get_weather", content: "" },
        ],
      }),
    );
    const body = server.requests.at(-1)!.body as Record<string, unknown>;
    expect(body).not.toHaveProperty("system");
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "image", source: { type: "url", url: "https://x.test/a.jpg" } },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "chatcmpl-tool_1_a", name: "get_weather", input: {} }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "chatcmpl-tool_1_a" }] },
    ]);
  });

  it("round-trips a recorded thinking signature: streamed out, then sent back byte for byte", async () => {
    server.reply(sse(readFixture("anthropic_thinking_recorded.sse")));
    const events = await collect(anthropicAt(server.url), request());
    // Rebuild the assistant message the way the loop does: deltas accumulate, a signature closes a block.
    const thinking: ThinkingBlock[] = [];
    let current = "";
    for (const e of ofType(events, "thinking-delta")) {
      current += e.text;
      if (e.signature) {
        thinking.push({ text: current, signature: e.signature });
        current = "";
      }
    }
    const assistant: AssistantModelMessage = {
      role: "assistant",
      text: ofType(events, "text-delta")
        .map((e) => e.text)
        .join(""),
      thinking,
    };
    server.reply(sse(DONE));
    await collect(
      anthropicAt(server.url),
      request({
        messages: [
          { role: "user", content: "How do I cross the street?" },
          assistant,
          { role: "user", content: "thanks" },
        ],
      }),
    );
    const sent = server.requests.at(-1)!.body as {
      messages: { content: { type: string; signature?: string }[] }[];
    };
    const recordedSignature = /"signature":"(E[^"]+)"/.exec(
      readFixture("anthropic_thinking_recorded.sse"),
    )![1];
    const block = sent.messages[1]!.content[0]!;
    expect(block).toEqual({ type: "thinking", thinking: thinking[0]!.text, signature: recordedSignature });
    expect(thinking[0]!.text).toMatch(/^This is a straightforward question about pedestrian safety\./);
  });
});

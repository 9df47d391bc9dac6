import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, request } from "./helpers/collect.js";
import { HISTORY, WEATHER_TOOL } from "./helpers/history.js";
import { chatSse, type MockLlmServer, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { openaiAt, TEST_OPENAI_KEY } from "./helpers/providers.js";

const DONE = chatSse([{ id: "c", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }]);

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function sentBody(req = request(), overrides = {}) {
  server.reply(sse(DONE));
  await collect(openaiAt(server.url, overrides), req);
  return server.requests.at(-1)!;
}

describe("OpenAI request mapping (the body the server receives)", () => {
  it("maps system, image, assistant tool calls and pairs tool results in call order", async () => {
    const sent = await sentBody(request({ messages: HISTORY, tools: [WEATHER_TOOL], maxTokens: 256 }));
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${TEST_OPENAI_KEY}`);
    expect(sent.body).toEqual({
      model: "test-model",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 256,
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather in Paris and Rome? Also, what is in this picture?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
        {
          role: "assistant",
          content: "Checking both.",
          tool_calls: [
            {
              id: "call_paris",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
            {
              id: "call_rome",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_paris", content: "paris: timeout" },
        { role: "tool", tool_call_id: "call_rome", content: "rome: 24C" },
        { role: "user", content: "And tomorrow?" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather for a city",
            parameters: WEATHER_TOOL.inputSchema,
          },
        },
      ],
    });
    // parallel_tool_calls is left to the model
    expect(sent.body).not.toHaveProperty("parallel_tool_calls");
  });

  it("fills in a missing tool result and drops an orphaned one (both would be rejected)", async () => {
    const sent = await sentBody(
      request({
        messages: [
          { role: "user", content: "go" },
          { role: "tool", toolCallId: "ghost", name: "x", content: "orphan" },
          {
            role: "assistant",
            text: "",
            toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Oslo" } }],
          },
          { role: "user", content: "stop" },
        ],
      }),
    );
    const messages = (sent.body as { messages: unknown[] }).messages;
    expect(messages.slice(1)).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: expect.stringMatching(/interrupted/) },
      { role: "user", content: "stop" },
    ]);
  });

  it("omits empty tools and uses max_tokens for compatible servers", async () => {
    const sent = await sentBody(request({ maxTokens: 64 }), { maxTokensField: "max_tokens" });
    expect(sent.body).toMatchObject({ max_tokens: 64 });
    expect(sent.body).not.toHaveProperty("tools");
    expect(sent.body).not.toHaveProperty("max_completion_tokens");
  });

  it("sends an image given by URL as that URL", async () => {
    const sent = await sentBody(
      request({
        messages: [
          { role: "user", content: [{ type: "image", uri: "https://x.test/a.png", mime_type: "image/png" }] },
        ],
      }),
    );
    expect((sent.body as { messages: unknown[] }).messages[1]).toEqual({
      role: "user",
      content: [{ type: "image_url", image_url: { url: "https://x.test/a.png" } }],
    });
  });
});

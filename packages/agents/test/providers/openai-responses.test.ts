/**
 * The Responses adapter with the real `openai` SDK against a local server that replays Responses
 * streams: recorded ones (fixtures/openai_responses_*.sse) and ones written from the documented events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelMessage, ProviderEvent, ThinkingBlock } from "../../src/index.js";
import { createProviderRegistry, providerRegistryConfigFromEnv } from "../../src/index.js";
import { OpenAIProvider } from "../../src/providers/openai/openai-provider.js";
import { wantsReasoning } from "../../src/providers/openai-responses/map-responses-request.js";
import { OpenAIResponsesProvider } from "../../src/providers/openai-responses/openai-responses-provider.js";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import { dataLines, readFixture } from "./helpers/fixtures.js";
import { HISTORY, WEATHER_TOOL } from "./helpers/history.js";
import { json, type MockLlmServer, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { anthropicAt, TEST_OPENAI_KEY } from "./helpers/providers.js";
import {
  callEvents,
  completed,
  reasoningEvents,
  responsesAt,
  responsesSse,
  textEvents,
} from "./helpers/responses-wire.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function replay(fixture: string) {
  server.reply(sse(readFixture(fixture), { "x-request-id": "req_fixture" }));
  return collect(responsesAt(server.url), request({ model: "gpt-5.1-codex-max" }));
}

/** The reasoning item a thinking delta closed its block with. */
function reasoningOf(events: ProviderEvent[]) {
  return ofType(events, "thinking-delta").flatMap((e) => (e.reasoning ? [e.reasoning] : []));
}

/** The assistant message the loop stores from one call's events (as stream-model-turn folds them). */
function assistantFrom(events: ProviderEvent[]): ModelMessage {
  const thinking: ThinkingBlock[] = [];
  let block: ThinkingBlock | null = null;
  for (const e of ofType(events, "thinking-delta")) {
    block ??= { text: "" };
    block.text += e.text;
    if (e.reasoning) {
      thinking.push({ ...block, reasoning: e.reasoning });
      block = null;
    }
  }
  const toolCalls = ofType(events, "tool-call").map(({ id, name, args }) => ({ id, name, args }));
  return { role: "assistant", text: textOf(events), thinking, toolCalls };
}

describe("Responses adapter replaying recorded streams", () => {
  it("openai_responses_reasoning_call.sse: summary streamed as thinking, the item closes the block, then the call", async () => {
    const events = await replay("openai_responses_reasoning_call.sse");
    const lines = dataLines(readFixture("openai_responses_reasoning_call.sse"));
    const done = lines.find(
      (l) => l.type === "response.output_item.done" && (l.item as { type: string }).type === "reasoning",
    )!.item as { id: string; encrypted_content: string; summary: { text: string }[] };
    const summary = done.summary[0]!.text;
    expect(summary).toMatch(/^\*\*Calculating step-by-step/);
    const thinking = ofType(events, "thinking-delta");
    expect(thinking.length).toBeGreaterThan(10);
    expect(thinking.map((e) => e.text).join("")).toBe(summary);
    // The done item's encrypted content (not the added one's) is what the next call must send back.
    expect(reasoningOf(events)).toEqual([
      { id: done.id, encryptedContent: done.encrypted_content, summary: [summary] },
    ]);
    expect(thinking.at(-1)).toMatchObject({ text: "", reasoning: { id: done.id } });
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        name: "calculator",
        args: { a: 12, b: 7, op: "add" },
      },
    ]);
    expect(events.slice(-3).map((e) => e.type)).toEqual(["tool-call", "usage", "finish"]);
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 134,
      outputTokens: 28,
      cacheReadTokens: 0,
      reasoningTokens: 0,
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("openai_responses_function_call.sse: arguments from many deltas, usage, tool_calls", async () => {
    const events = await replay("openai_responses_function_call.sse");
    expect(events).toEqual([
      {
        type: "tool-call",
        id: "call_Q6pW65MUgW9vF59BmItYGos3",
        name: "calculator",
        args: { a: 19, b: 3, op: "multiply" },
      },
      {
        type: "usage",
        usage: { inputTokens: 221, outputTokens: 26, cacheReadTokens: 0, reasoningTokens: 0 },
      },
      { type: "finish", reason: "tool_calls" },
    ]);
  });

  it("openai_responses_text.sse: output_text deltas in order, stop", async () => {
    const events = await replay("openai_responses_text.sse");
    expect(textOf(events)).toBe("The final result is **570**.");
    expect(ofType(events, "tool-call")).toEqual([]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(ofType(events, "usage")[0]?.usage).toMatchObject({ inputTokens: 299, outputTokens: 12 });
  });

  it("openai_responses_text.sse through a given fetch (read as a web stream) gives the same events", async () => {
    const viaTransport = await replay("openai_responses_text.sse");
    server.reply(sse(readFixture("openai_responses_text.sse"), { "x-request-id": "req_fixture" }));
    const viaFetch = await collect(responsesAt(server.url, { fetch: globalThis.fetch }), request());
    expect(viaFetch).toEqual(viaTransport);
  });

  it("openai_responses_error_midstream.sse: the error event after HTTP 200 ends the call, with the request id", async () => {
    const events = await replay("openai_responses_error_midstream.sse");
    expect(events).toEqual([
      {
        type: "error",
        error: {
          message: expect.stringMatching(/^insufficient_quota: You exceeded your current quota/),
          requestId: "req_fixture",
          beforeStream: false,
        },
      },
      { type: "finish", reason: "error" },
    ]);
  });
});

describe("Responses adapter on streams written from the documented events", () => {
  it("a summary of several parts streams as one thinking block with blank lines between the parts", async () => {
    const parts = ["**Plan**\n\nAdd first.", "**Check**\n\nThen multiply."];
    server.reply(
      sse(responsesSse([...reasoningEvents("rs_1", parts, "enc-1"), ...textEvents("ok"), completed()])),
    );
    const events = await collect(responsesAt(server.url), request({ model: "o4-mini" }));
    const thinking = ofType(events, "thinking-delta");
    expect(thinking.map((e) => e.text)).toEqual([parts[0], `\n\n${parts[1]}`, ""]);
    expect(reasoningOf(events)).toEqual([{ id: "rs_1", encryptedContent: "enc-1", summary: parts }]);
    expect(textOf(events)).toBe("ok");
  });

  it("parallel calls (two function_call items) come after completion, in output order, with cached and reasoning tokens", async () => {
    const usage = {
      input_tokens: 2006,
      input_tokens_details: { cached_tokens: 1920 },
      output_tokens: 300,
      output_tokens_details: { reasoning_tokens: 128 },
      total_tokens: 2306,
    };
    const body = [
      ...reasoningEvents("rs_p", [], "enc-p"),
      ...callEvents({ itemId: "fc_a", callId: "call_paris", name: "get_weather", json: '{"city":"Paris"}' }),
      ...callEvents({ itemId: "fc_b", callId: "call_rome", name: "get_weather", json: '{"city":"Rome"}' }),
      completed(usage),
    ];
    server.reply(sse(responsesSse(body)));
    const events = await collect(responsesAt(server.url), request({ model: "gpt-5" }));
    expect(events.map((e) => e.type)).toEqual([
      "thinking-delta",
      "tool-call",
      "tool-call",
      "usage",
      "finish",
    ]);
    expect(ofType(events, "tool-call").map((c) => [c.id, c.args])).toEqual([
      ["call_paris", { city: "Paris" }],
      ["call_rome", { city: "Rome" }],
    ]);
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 2006,
      outputTokens: 300,
      cacheReadTokens: 1920,
      reasoningTokens: 128,
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("bad JSON arguments become invalidArgs on that call only", async () => {
    const body = [
      ...callEvents({ itemId: "fc_a", callId: "call_1", name: "f", json: '{"a":1}' }),
      ...callEvents({ itemId: "fc_b", callId: "call_2", name: "f", json: '{"city": "Par' }),
      completed(),
    ];
    server.reply(sse(responsesSse(body)));
    const calls = ofType(await collect(responsesAt(server.url), request()), "tool-call");
    expect(calls[0]).toEqual({ type: "tool-call", id: "call_1", name: "f", args: { a: 1 } });
    expect(calls[1]).toMatchObject({ id: "call_2", args: undefined, invalidArgs: { raw: '{"city": "Par' } });
  });

  it("response.incomplete for max_output_tokens finishes with length", async () => {
    const incomplete = {
      type: "response.incomplete",
      response: {
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
        usage: { input_tokens: 5, output_tokens: 16 },
      },
    };
    server.reply(sse(responsesSse([...textEvents("cut sh"), incomplete])));
    const events = await collect(responsesAt(server.url), request({ maxTokens: 16 }));
    expect(textOf(events)).toBe("cut sh");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  it("response.failed alone (no error event) is the call's error; the held call is dropped", async () => {
    const failed = {
      type: "response.failed",
      response: { status: "failed", error: { code: "server_error", message: "The model crashed." } },
    };
    const body = [...callEvents({ itemId: "fc_a", callId: "call_1", name: "f", json: "{}" }), failed];
    server.reply(sse(responsesSse(body), { "x-request-id": "req_failed" }));
    const events = await collect(responsesAt(server.url), request());
    expect(events).toEqual([
      {
        type: "error",
        error: { message: "The model crashed.", requestId: "req_failed", beforeStream: false },
      },
      { type: "finish", reason: "error" },
    ]);
  });
});

describe("Responses request body", () => {
  it("POSTs /v1/responses: store false, instructions, input items, non-strict tools; no reasoning for other models", async () => {
    server.reply(sse(responsesSse([...textEvents("ok"), completed()])));
    await collect(
      responsesAt(server.url),
      request({ messages: HISTORY, tools: [WEATHER_TOOL], maxTokens: 256 }),
    );
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.headers.authorization).toBe(`Bearer ${TEST_OPENAI_KEY}`);
    // HISTORY's thinking blocks are Anthropic's (signed, redacted): nothing of them goes to OpenAI,
    // and "test-model" is no reasoning model, so no `reasoning` nor the include (such models refuse both).
    expect(sent.body).toEqual({
      model: "test-model",
      stream: true,
      store: false,
      instructions: "You are terse.",
      max_output_tokens: 256,
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "Weather in Paris and Rome? Also, what is in this picture?" },
            { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
          ],
        },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "Checking both.", annotations: [] }],
        },
        { type: "function_call", call_id: "call_paris", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_rome", name: "get_weather", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "call_paris", output: "paris: timeout" },
        { type: "function_call_output", call_id: "call_rome", output: "rome: 24C" },
        { role: "user", content: "And tomorrow?" },
      ],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather for a city",
          parameters: WEATHER_TOOL.inputSchema,
          strict: false,
        },
      ],
    });
  });

  it("maps the settings: temperature, reasoning_effort → reasoning.effort, parallel_tool_calls (with tools)", async () => {
    server.reply(sse(responsesSse([...textEvents("ok"), completed()])));
    const settings = { temperature: 0.3, reasoning_effort: "minimal" as const, parallel_tool_calls: false };
    await collect(responsesAt(server.url), request({ tools: [WEATHER_TOOL], settings, maxTokens: 900 }));
    expect(server.requests.at(-1)!.body).toMatchObject({
      temperature: 0.3,
      reasoning: { summary: "auto", effort: "minimal" },
      parallel_tool_calls: false,
      max_output_tokens: 900,
    });
    // Without tools parallel_tool_calls means nothing; a gpt-5 model gets a summary without an effort.
    server.reply(sse(responsesSse([...textEvents("ok"), completed()])));
    await collect(
      responsesAt(server.url),
      request({ model: "gpt-5-mini", settings: { parallel_tool_calls: true } }),
    );
    const body = server.requests.at(-1)!.body as Record<string, unknown>;
    expect(body.reasoning).toEqual({ summary: "auto" });
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body).not.toHaveProperty("parallel_tool_calls");
    expect(body).not.toHaveProperty("temperature");
  });

  it("a tool loop: each call sends the reasoning items, calls and outputs of the calls before it", async () => {
    const provider = responsesAt(server.url);
    const loop: ModelMessage[] = [{ role: "user", content: "What is (12 + 7) * 3?" }];
    const steps = [
      [
        ...reasoningEvents("rs_1", ["Add first."], "enc-one"),
        ...callEvents({ itemId: "fc_1", callId: "call_1", name: "calc", json: '{"a":12,"b":7,"op":"add"}' }),
        completed(),
      ],
      [
        ...reasoningEvents("rs_2", ["Now multiply."], "enc-two"),
        ...callEvents({ itemId: "fc_2", callId: "call_2", name: "calc", json: '{"a":19,"b":3,"op":"mul"}' }),
        completed(),
      ],
      [...textEvents("57"), completed()],
    ];
    const before = server.requests.length;
    for (const [i, step] of steps.entries()) {
      server.reply(sse(responsesSse(step)));
      const events = await collect(
        provider,
        request({ model: "gpt-5", messages: loop, tools: [WEATHER_TOOL] }),
      );
      const assistant = assistantFrom(events);
      loop.push(assistant);
      for (const call of ofType(events, "tool-call"))
        loop.push({ role: "tool", toolCallId: call.id, name: call.name, content: `result ${i + 1}` });
    }
    const bodies = server.requests.slice(before).map((r) => r.body as { input: unknown[]; store: boolean });
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
    }
    const reasoning1 = {
      type: "reasoning",
      id: "rs_1",
      encrypted_content: "enc-one",
      summary: [{ type: "summary_text", text: "Add first." }],
    };
    const call1 = {
      type: "function_call",
      call_id: "call_1",
      name: "calc",
      arguments: '{"a":12,"b":7,"op":"add"}',
    };
    const output1 = { type: "function_call_output", call_id: "call_1", output: "result 1" };
    expect(bodies[1]!.input).toEqual([
      { role: "user", content: "What is (12 + 7) * 3?" },
      reasoning1,
      call1,
      output1,
    ]);
    expect(bodies[2]!.input).toEqual([
      { role: "user", content: "What is (12 + 7) * 3?" },
      reasoning1,
      call1,
      output1,
      {
        type: "reasoning",
        id: "rs_2",
        encrypted_content: "enc-two",
        summary: [{ type: "summary_text", text: "Now multiply." }],
      },
      { type: "function_call", call_id: "call_2", name: "calc", arguments: '{"a":19,"b":3,"op":"mul"}' },
      { type: "function_call_output", call_id: "call_2", output: "result 2" },
    ]);
  });

  it("a reasoning item without encrypted content is not sent (with store:false its id alone is not found)", async () => {
    server.reply(sse(responsesSse([...textEvents("ok"), completed()])));
    const messages: ModelMessage[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        text: "hello",
        thinking: [{ text: "t", reasoning: { id: "rs_x", summary: ["t"] } }],
      },
      { role: "user", content: "again" },
    ];
    await collect(responsesAt(server.url), request({ messages }));
    const input = (server.requests.at(-1)!.body as { input: { type?: string }[] }).input;
    expect(input.filter((i) => i.type === "reasoning")).toEqual([]);
    expect(input).toHaveLength(3);
  });

  it("429 then 500 before the stream are retried by the SDK, then the answer streams", async () => {
    const before = server.requests.length;
    server.reply(
      json(429, { error: { message: "Rate limit reached", type: "requests" } }, { "retry-after": "0" }),
      json(500, { error: { message: "boom", type: "server_error" } }, { "retry-after": "0" }),
      sse(responsesSse([...textEvents("fine"), completed()])),
    );
    const events = await collect(responsesAt(server.url, { maxRetries: 2 }), request());
    expect(textOf(events)).toBe("fine");
    expect(server.requests.slice(before).map((r) => r.headers["x-stainless-retry-count"])).toEqual([
      "0",
      "1",
      "2",
    ]);
  });
});

describe("which models reason", () => {
  it("o-series and gpt-5 (not gpt-5-chat), with a prefix too; any model with a reasoning_effort", () => {
    const reasons = (model: string, effort?: "low") =>
      wantsReasoning(request({ model, ...(effort ? { settings: { reasoning_effort: effort } } : {}) }));
    for (const model of ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5.1-codex-max", "openai/gpt-5-mini"])
      expect(reasons(model), model).toBe(true);
    for (const model of ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "gpt-5.1-chat-latest", "llama3.2"])
      expect(reasons(model), model).toBe(false);
    expect(reasons("qwen3-32b", "low")).toBe(true);
  });
});

describe("Responses reasoning and the other providers", () => {
  it("Anthropic sends no block for a Responses reasoning item (only its own signed or redacted ones)", async () => {
    const end = [
      { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ];
    server.reply(sse(responsesSse(end)));
    const messages: ModelMessage[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        text: "hello",
        thinking: [{ text: "t", reasoning: { id: "rs_x", encryptedContent: "enc", summary: ["t"] } }],
      },
      { role: "user", content: "again" },
    ];
    await collect(anthropicAt(server.url), request({ messages }));
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(JSON.stringify(sent.body)).not.toContain("enc");
    expect(JSON.stringify(sent.body)).not.toContain('"thinking"');
  });
});

describe("OPENAI_API / <NAME>_API in the registry", () => {
  it("api=responses makes openai and a compatible endpoint Responses providers; chat (the default) keeps Chat Completions", () => {
    const registry = createProviderRegistry({
      openai: { apiKey: TEST_OPENAI_KEY, api: "responses" },
      compatEndpoints: [
        { name: "azure", baseURL: `${server.url}/v1`, api: "responses" },
        { name: "local", baseURL: `${server.url}/v1` },
      ],
    });
    expect(registry.get("openai")).toBeInstanceOf(OpenAIResponsesProvider);
    expect(registry.get("azure")).toBeInstanceOf(OpenAIResponsesProvider);
    expect(registry.get("local")).toBeInstanceOf(OpenAIProvider);
    expect(createProviderRegistry({ openai: { apiKey: TEST_OPENAI_KEY } }).get("openai")).toBeInstanceOf(
      OpenAIProvider,
    );
    const fromEnv = providerRegistryConfigFromEnv({
      OPENAI_API_KEY: TEST_OPENAI_KEY,
      OPENAI_API: "responses",
      OPENAI_COMPAT_ENDPOINTS: `my-azure=${server.url}/v1,local=${server.url}/v1`,
      MY_AZURE_API: "responses",
    });
    const env = createProviderRegistry(fromEnv);
    expect(env.get("openai")).toBeInstanceOf(OpenAIResponsesProvider);
    expect(env.get("my-azure")).toBeInstanceOf(OpenAIResponsesProvider);
    expect(env.get("local")).toBeInstanceOf(OpenAIProvider);
  });
});

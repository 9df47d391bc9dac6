import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import {
  hang,
  json,
  type MockLlmServer,
  messagesSse,
  sse,
  sseThenCut,
  sseThenHold,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { anthropicAt, TEST_ANTHROPIC_KEY } from "./helpers/providers.js";

type Ev = { type: string; [k: string]: unknown };
const start: Ev = {
  type: "message_start",
  message: { id: "m", usage: { input_tokens: 10, output_tokens: 1 } },
};
const textBlock = (i: number, t: string): Ev[] => [
  { type: "content_block_start", index: i, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: i, delta: { type: "text_delta", text: t } },
  { type: "content_block_stop", index: i },
];
const toolBlock = (i: number, json: string, stop = true): Ev[] => [
  {
    type: "content_block_start",
    index: i,
    content_block: { type: "tool_use", id: `toolu_${i}`, name: "f", input: {} },
  },
  { type: "content_block_delta", index: i, delta: { type: "input_json_delta", partial_json: json } },
  ...(stop ? [{ type: "content_block_stop", index: i }] : []),
];
const end = (reason: string, output = 5): Ev[] => [
  { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: output } },
  { type: "message_stop" },
];
const OK = messagesSse([start, ...textBlock(0, "fine"), ...end("end_turn")]);
const err = (type: string, message: string, requestId = "req_body") => ({
  type: "error",
  error: { type, message },
  request_id: requestId,
});

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

describe("Anthropic adapter failures", () => {
  it("429 with a small retry-after is retried by the SDK, then succeeds", async () => {
    const before = server.requests.length;
    server.reply(json(429, err("rate_limit_error", "slow down"), { "retry-after": "0.001" }), sse(OK));
    const events = await collect(anthropicAt(server.url, { maxRetries: 2 }), request());
    expect(textOf(events)).toBe("fine");
    expect(server.requests.slice(before).map((r) => r.headers["x-stainless-retry-count"])).toEqual([
      "0",
      "1",
    ]);
  });

  it("529 overloaded three times exhausts maxRetries 2: status and request id reach the error", async () => {
    const before = server.requests.length;
    const fail = json(529, err("overloaded_error", "Overloaded"), {
      "retry-after": "0.001",
      "request-id": "req_529",
    });
    server.reply(fail, fail, fail);
    const events = await collect(anthropicAt(server.url, { maxRetries: 2 }), request());
    expect(server.requests.length - before).toBe(3);
    expect(events).toEqual([
      {
        type: "error",
        error: {
          message: "overloaded_error: Overloaded",
          status: 529,
          requestId: "req_529",
          beforeStream: true,
        },
      },
      { type: "finish", reason: "error" },
    ]);
  });

  it("500 three times: api_error with the body's request id when no header is sent", async () => {
    const fail = json(500, err("api_error", "Internal server error", "req_011CbGw"), {
      "retry-after": "0.001",
    });
    server.reply(fail, fail, fail);
    const [error] = ofType(await collect(anthropicAt(server.url, { maxRetries: 2 }), request()), "error");
    expect(error?.error).toEqual({
      message: "api_error: Internal server error",
      status: 500,
      requestId: "req_011CbGw",
      beforeStream: true,
    });
  });

  it("401 is not retried and never shows the key", async () => {
    const before = server.requests.length;
    server.reply(json(401, err("authentication_error", `invalid x-api-key ${TEST_ANTHROPIC_KEY}`)));
    const events = await collect(anthropicAt(server.url, { maxRetries: 2 }), request());
    expect(server.requests.length - before).toBe(1);
    expect(ofType(events, "error")[0]?.error).toMatchObject({ status: 401, beforeStream: true });
    expect(JSON.stringify(events)).not.toContain(TEST_ANTHROPIC_KEY);
  });

  it("a connection cut before the message ends: text kept, error, no tool call", async () => {
    server.reply(
      sseThenCut(messagesSse([start, ...textBlock(0, "partial"), ...toolBlock(1, '{"a":1}')]), {
        "request-id": "req_cut",
      }),
    );
    const events = await collect(anthropicAt(server.url), request());
    expect(textOf(events)).toBe("partial");
    expect(ofType(events, "tool-call")).toEqual([]);
    expect(ofType(events, "error")[0]?.error).toMatchObject({ beforeStream: false, requestId: "req_cut" });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "error" });
  });

  it("a stream that closes cleanly without a stop reason is a failure", async () => {
    server.reply(sse(messagesSse([start, ...toolBlock(0, '{"a":1}')])));
    const events = await collect(anthropicAt(server.url), request());
    expect(ofType(events, "tool-call")).toEqual([]);
    expect(ofType(events, "error")[0]?.error.message).toMatch(/ended before the model finished/);
  });

  it("a mid-stream error event after a complete tool block still emits no tool call", async () => {
    const body = `${messagesSse([start, ...toolBlock(0, '{"a":1}')])}event: error\ndata: ${JSON.stringify(err("overloaded_error", "Overloaded"))}\n\n`;
    server.reply(sse(body));
    const events = await collect(anthropicAt(server.url), request());
    expect(events).toEqual([
      {
        type: "error",
        error: {
          message: "overloaded_error: Overloaded",
          status: 529,
          requestId: "req_body",
          beforeStream: false,
        },
      },
      { type: "finish", reason: "error" },
    ]);
  });

  it("malformed tool JSON from the model becomes invalidArgs on that call only", async () => {
    server.reply(
      sse(
        messagesSse([start, ...toolBlock(0, '{"a": 1}'), ...toolBlock(1, '{"a": tru'), ...end("tool_use")]),
      ),
    );
    const calls = ofType(await collect(anthropicAt(server.url), request()), "tool-call");
    expect(calls[0]).toEqual({ type: "tool-call", id: "toolu_0", name: "f", args: { a: 1 } });
    expect(calls[1]).toMatchObject({ id: "toolu_1", args: undefined, invalidArgs: { raw: '{"a": tru' } });
  });

  it("usage repeated in message_delta (proxies) is counted once; unknown events and weird blocks are ignored", async () => {
    const events = [
      {
        type: "message_start",
        message: { usage: { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 1 } },
      },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "s", name: "web" },
      },
      { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: {} } },
      { type: "brand_new_event", foo: 1 },
      { type: "content_block_delta", index: 7, delta: { type: "input_json_delta", partial_json: "{" } },
      ...textBlock(1, "hi"),
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 9 },
      },
      {
        type: "message_delta",
        delta: {},
        usage: { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 12 },
      },
      { type: "message_stop" },
    ];
    server.reply(sse(messagesSse(events)));
    const out = await collect(anthropicAt(server.url), request());
    expect(out).toEqual([
      { type: "text-delta", text: "hi" },
      { type: "usage", usage: { inputTokens: 150, outputTokens: 12, cacheReadTokens: 50 } },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("a server that never sends a byte is bounded by the timeout", async () => {
    server.reply(hang());
    const events = await collect(anthropicAt(server.url, { timeoutMs: 150 }), request());
    expect(events).toEqual([
      {
        type: "error",
        error: { message: "request timed out (no response within 150 ms)", beforeStream: true },
      },
      { type: "finish", reason: "error" },
    ]);
  });

  it("cancellation mid-stream closes the upstream connection and ends the stream with no further event", async () => {
    const before = server.requests.length;
    server.reply(sseThenHold(messagesSse([start, ...textBlock(0, "first")])));
    const controller = new AbortController();
    const events = [];
    for await (const event of anthropicAt(server.url).stream(request(), controller.signal)) {
      events.push(event);
      controller.abort();
    }
    expect(events).toEqual([{ type: "text-delta", text: "first" }]);
    await server.requests[before]!.closed;
  });

  it("cancellation before the response headers aborts the request and yields nothing", async () => {
    const before = server.requests.length;
    server.reply(hang());
    const controller = new AbortController();
    const done = collect(anthropicAt(server.url), request(), controller.signal);
    const arrived = await server.requestArrived(before + 1);
    controller.abort();
    expect(await done).toEqual([]);
    await arrived.closed;
  });
});

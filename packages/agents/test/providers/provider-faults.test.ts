/**
 * How the Anthropic and OpenAI adapters fail: one table of faults, each played by a real local HTTP
 * server in the provider's own wire format (helpers/fault-wires.ts) and run against both adapters.
 * A case with `only` is a fault that exists in one API's format.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderEvent } from "../../src/index.js";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import { anthropicWire, type FaultWire, openaiWire } from "./helpers/fault-wires.js";
import {
  chatSse,
  hang,
  json,
  type MockLlmServer,
  messagesSse,
  raw,
  sse,
  sseThenCut,
  sseThenHold,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { responsesWire } from "./helpers/responses-wire.js";

type FaultCase = {
  name: string;
  /** The one API whose format has this fault; both when absent. */
  only?: FaultWire["name"];
  run(wire: FaultWire, server: MockLlmServer): Promise<void>;
};

const finishedWithError: ProviderEvent = { type: "finish", reason: "error" };

const cases: FaultCase[] = [
  {
    name: "429 with a retry-after of now is retried by the SDK, then succeeds",
    async run(wire, server) {
      const before = server.requests.length;
      server.reply(
        json(429, wire.errorBody(wire.rateLimitType, "Rate limit reached"), {
          "retry-after": wire.retryAfterNow,
        }),
        sse(wire.stream([{ text: "fine" }], "stop")),
      );
      const events = await collect(wire.provider(server.url, { maxRetries: 2 }), request());
      expect(textOf(events)).toBe("fine");
      expect(ofType(events, "error")).toEqual([]);
      expect(server.requests.slice(before).map((r) => r.headers["x-stainless-retry-count"])).toEqual([
        "0",
        "1",
      ]);
    },
  },
  {
    name: "an overloaded server three times exhausts maxRetries 2: one error with status and request id, before the stream",
    async run(wire, server) {
      const before = server.requests.length;
      const { status, type, message } = wire.overloaded;
      const fail = json(status, wire.errorBody(type, message), {
        "retry-after": wire.retryAfterNow,
        [wire.requestIdHeader]: "req_overloaded",
      });
      server.reply(fail, fail, fail);
      const events = await collect(wire.provider(server.url, { maxRetries: 2 }), request());
      expect(server.requests.length - before).toBe(3);
      expect(events).toEqual([
        {
          type: "error",
          error: { message: `${type}: ${message}`, status, requestId: "req_overloaded", beforeStream: true },
        },
        finishedWithError,
      ]);
    },
  },
  {
    name: "500 three times: api_error with the body's request id when no header is sent",
    only: "anthropic",
    async run(wire, server) {
      const fail = json(
        500,
        {
          type: "error",
          error: { type: "api_error", message: "Internal server error" },
          request_id: "req_011CbGw",
        },
        { "retry-after": wire.retryAfterNow },
      );
      server.reply(fail, fail, fail);
      const [error] = ofType(await collect(wire.provider(server.url, { maxRetries: 2 }), request()), "error");
      expect(error?.error).toEqual({
        message: "api_error: Internal server error",
        status: 500,
        requestId: "req_011CbGw",
        beforeStream: true,
      });
    },
  },
  {
    name: "401 is not retried and the key in the message is redacted",
    async run(wire, server) {
      const before = server.requests.length;
      const message = `Incorrect API key provided: ${wire.key}. Also sk-VKMIs***wjh3. You can find your API key at https://platform.openai.com/account/api-keys.`;
      server.reply(
        json(401, wire.errorBody(wire.unauthorizedType, message), { [wire.requestIdHeader]: "req_401" }),
      );
      const events = await collect(wire.provider(server.url, { maxRetries: 2 }), request());
      expect(server.requests.length - before).toBe(1);
      const [error] = ofType(events, "error");
      expect(error?.error).toMatchObject({ status: 401, requestId: "req_401", beforeStream: true });
      expect(error?.error.message).toMatch(
        new RegExp(`^${wire.unauthorizedType}: Incorrect API key provided: \\*\\*\\*`),
      );
      expect(JSON.stringify(events)).not.toContain(wire.key);
      expect(JSON.stringify(events)).not.toContain("VKMIs");
    },
  },
  {
    name: "a retry-after beyond the configured bound is not waited for",
    async run(wire, server) {
      const before = server.requests.length;
      server.reply(json(429, wire.errorBody(wire.rateLimitType, "slow down"), { "retry-after": "3600" }));
      const provider = wire.provider(server.url, { maxRetries: 2, maxRetryDelayMs: 1_000 });
      const events = await collect(provider, request());
      expect(server.requests.length - before).toBe(1);
      expect(ofType(events, "error")[0]?.error).toMatchObject({
        status: 429,
        message: `${wire.rateLimitType}: slow down`,
      });
    },
  },
  {
    name: "an HTML error page is summarised, never passed through",
    async run(wire, server) {
      server.reply(
        raw(
          502,
          "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad Gateway</h1><script>x()</script></body></html>",
          "text/html",
        ),
      );
      const [error] = ofType(await collect(wire.provider(server.url), request()), "error");
      expect(error?.error.status).toBe(502);
      expect(error?.error.message).toContain("502 Bad Gateway");
      expect(error?.error.message).not.toMatch(/[<>]/);
    },
  },
  {
    name: "a connection cut mid-stream: text kept, error event, the streamed tool call never emitted",
    async run(wire, server) {
      const body = wire.stream([{ text: "partial" }, { tool: { id: "call_1", json: '{"a":1}' } }], "open");
      server.reply(sseThenCut(body, { [wire.requestIdHeader]: "req_cut" }));
      const events = await collect(wire.provider(server.url), request());
      expect(textOf(events)).toBe("partial");
      expect(ofType(events, "tool-call")).toEqual([]);
      expect(ofType(events, "error")[0]?.error).toMatchObject({ beforeStream: false, requestId: "req_cut" });
      expect(events.at(-1)).toEqual(finishedWithError);
    },
  },
  {
    name: "a stream that closes cleanly before any finish reason is a failure",
    async run(wire, server) {
      server.reply(sse(wire.stream([{ tool: { id: "call_1", json: '{"a":1}' } }], "open")));
      const events = await collect(wire.provider(server.url), request());
      expect(ofType(events, "tool-call")).toEqual([]);
      expect(ofType(events, "error")[0]?.error.message).toMatch(/ended before the model finished/);
    },
  },
  {
    name: "the API's own mid-stream error event after a tool call ends the stream with its error, no tool call",
    async run(wire, server) {
      const { event, headers, error } = wire.midStreamError;
      const body = wire.stream([{ text: "x" }, { tool: { id: "call_1", json: '{"a":1}' } }], "open") + event;
      server.reply(sse(body, headers));
      const events = await collect(wire.provider(server.url), request());
      expect(textOf(events)).toBe("x");
      expect(events.filter((e) => e.type !== "text-delta")).toEqual([
        { type: "error", error },
        finishedWithError,
      ]);
    },
  },
  {
    name: "vLLM's mid-stream error shape {object:'error'} is an error, not a chunk",
    only: "openai",
    async run(wire, server) {
      const body = chatSse([
        { id: "c", choices: [{ index: 0, delta: { content: "x" }, finish_reason: null }] },
        { object: "error", message: "CUDA out of memory" },
      ]);
      server.reply(sse(body));
      const events = await collect(wire.provider(server.url), request());
      expect(ofType(events, "error")[0]?.error).toMatchObject({
        message: "CUDA out of memory",
        beforeStream: false,
      });
      expect(events.at(-1)).toEqual(finishedWithError);
    },
  },
  {
    name: "an event whose data is not JSON becomes an error event, not a crash",
    async run(wire, server) {
      server.reply(sse(wire.stream([{ text: "x" }], "open") + wire.notJsonEvent));
      const events = await collect(wire.provider(server.url), request());
      const errors = ofType(events, "error");
      expect(errors).toHaveLength(1);
      // The parse failure itself, not the "ended before the model finished" an unfinished body also gets.
      expect(errors[0]?.error).toMatchObject({ message: expect.stringMatching(/JSON/), beforeStream: false });
      expect(events.at(-1)).toEqual(finishedWithError);
    },
  },
  {
    name: "malformed tool JSON from the model becomes invalidArgs on that call only",
    async run(wire, server) {
      const calls = [
        { tool: { id: "call_1", json: '{"a": 1}' } },
        { tool: { id: "call_2", json: '{"city": "Par' } },
      ];
      server.reply(sse(wire.stream(calls, "tool_calls")));
      const events = await collect(wire.provider(server.url), request());
      expect(ofType(events, "tool-call")).toEqual([
        { type: "tool-call", id: "call_1", name: "f", args: { a: 1 } },
        {
          type: "tool-call",
          id: "call_2",
          name: "f",
          args: undefined,
          invalidArgs: { raw: '{"city": "Par', message: expect.stringMatching(/not valid JSON/) },
        },
      ]);
      expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
    },
  },
  {
    name: "usage repeated in message_delta (proxies) is counted once; unknown events and weird blocks are ignored",
    only: "anthropic",
    async run(wire, server) {
      const usage = { input_tokens: 100, cache_read_input_tokens: 50 };
      const events = [
        { type: "message_start", message: { usage: { ...usage, output_tokens: 1 } } },
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "server_tool_use", id: "s", name: "web" },
        },
        { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: {} } },
        { type: "brand_new_event", foo: 1 },
        { type: "content_block_delta", index: 7, delta: { type: "input_json_delta", partial_json: "{" } },
        { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "hi" } },
        { type: "content_block_stop", index: 1 },
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { ...usage, output_tokens: 9 } },
        { type: "message_delta", delta: {}, usage: { ...usage, output_tokens: 12 } },
        { type: "message_stop" },
      ];
      server.reply(sse(messagesSse(events)));
      expect(await collect(wire.provider(server.url), request())).toEqual([
        { type: "text-delta", text: "hi" },
        { type: "usage", usage: { inputTokens: 150, outputTokens: 12, cacheReadTokens: 50 } },
        { type: "finish", reason: "stop" },
      ]);
    },
  },
  {
    name: "a server that never sends a byte is bounded by the timeout",
    async run(wire, server) {
      server.reply(hang());
      const started = Date.now();
      const events = await collect(wire.provider(server.url, { timeoutMs: 150 }), request());
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(events).toEqual([
        {
          type: "error",
          error: { message: "request timed out (no response within 150 ms)", beforeStream: true },
        },
        finishedWithError,
      ]);
    },
  },
  {
    name: "cancellation mid-stream closes the upstream connection and ends the stream with no further event",
    async run(wire, server) {
      const before = server.requests.length;
      server.reply(sseThenHold(wire.stream([{ text: "first" }], "open")));
      const controller = new AbortController();
      const events: ProviderEvent[] = [];
      for await (const event of wire.provider(server.url).stream(request(), controller.signal)) {
        events.push(event);
        controller.abort();
      }
      expect(events).toEqual([{ type: "text-delta", text: "first" }]);
      await server.requests[before]!.closed; // the server saw the socket close
    },
  },
  {
    name: "cancellation before the response headers aborts the request and yields nothing",
    async run(wire, server) {
      const before = server.requests.length;
      server.reply(hang());
      const controller = new AbortController();
      const done = collect(wire.provider(server.url), request(), controller.signal);
      const arrived = await server.requestArrived(before + 1);
      controller.abort();
      expect(await done).toEqual([]);
      await arrived.closed;
    },
  },
];

for (const wire of [anthropicWire, openaiWire, responsesWire]) {
  describe(`${wire.name} adapter failures`, () => {
    let server: MockLlmServer;
    beforeAll(async () => {
      server = await startMockLlmServer();
    });
    afterAll(() => server.close());

    for (const fault of cases.filter((c) => c.only === undefined || c.only === wire.name)) {
      it(fault.name, () => fault.run(wire, server));
    }
  });
}

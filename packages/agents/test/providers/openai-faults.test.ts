import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import {
  chatSse,
  hang,
  json,
  type MockLlmServer,
  raw,
  sse,
  sseThenCut,
  sseThenHold,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { openaiAt, TEST_OPENAI_KEY } from "./helpers/providers.js";

const text = (t: string) => ({
  id: "c",
  choices: [{ index: 0, delta: { content: t }, finish_reason: null }],
});
const stop = { id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
const toolStart = {
  id: "c",
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }],
      },
      finish_reason: null,
    },
  ],
};
const toolArgs = (a: string) => ({
  id: "c",
  choices: [
    { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: a } }] }, finish_reason: null },
  ],
});
const toolFinish = { id: "c", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] };
const OK = chatSse([text("fine"), stop]);
const SERVER_ERROR = {
  error: { message: "The server had an error processing your request.", type: "server_error" },
};

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

describe("OpenAI adapter failures", () => {
  it("429 with retry-after 0 is retried by the SDK, then succeeds", async () => {
    const before = server.requests.length;
    server.reply(
      json(
        429,
        { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
        { "retry-after": "0" },
      ),
      sse(OK),
    );
    const events = await collect(openaiAt(server.url, { maxRetries: 2 }), request());
    expect(textOf(events)).toBe("fine");
    expect(ofType(events, "error")).toEqual([]);
    const attempts = server.requests.slice(before);
    expect(attempts.map((r) => r.headers["x-stainless-retry-count"])).toEqual(["0", "1"]);
  });

  it("500 three times exhausts maxRetries 2: one error with status and request id, before the stream", async () => {
    const before = server.requests.length;
    const fail = json(500, SERVER_ERROR, { "retry-after": "0", "x-request-id": "req_500" });
    server.reply(fail, fail, fail);
    const events = await collect(openaiAt(server.url, { maxRetries: 2 }), request());
    expect(server.requests.length - before).toBe(3);
    expect(events).toEqual([
      {
        type: "error",
        error: {
          message: "server_error: The server had an error processing your request.",
          status: 500,
          requestId: "req_500",
          beforeStream: true,
        },
      },
      { type: "finish", reason: "error" },
    ]);
  });

  it("401 is not retried and the key in the message is redacted", async () => {
    const before = server.requests.length;
    server.reply(
      json(
        401,
        {
          error: {
            message: `Incorrect API key provided: ${TEST_OPENAI_KEY}. Also sk-VKMIs***wjh3. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        },
        { "x-request-id": "req_401" },
      ),
    );
    const events = await collect(openaiAt(server.url, { maxRetries: 2 }), request());
    expect(server.requests.length - before).toBe(1);
    const [error] = ofType(events, "error");
    expect(error?.error).toMatchObject({ status: 401, requestId: "req_401", beforeStream: true });
    expect(error?.error.message).toMatch(/^invalid_request_error: Incorrect API key provided: \*\*\*/);
    expect(JSON.stringify(events)).not.toContain(TEST_OPENAI_KEY);
    expect(JSON.stringify(events)).not.toContain("VKMIs");
  });

  it("a retry-after beyond the configured bound is not waited for", async () => {
    const before = server.requests.length;
    server.reply(json(429, { error: { message: "slow down" } }, { "retry-after": "3600" }));
    const events = await collect(openaiAt(server.url, { maxRetries: 2, maxRetryDelayMs: 1_000 }), request());
    expect(server.requests.length - before).toBe(1);
    expect(ofType(events, "error")[0]?.error).toMatchObject({ status: 429, message: "slow down" });
  });

  it("an HTML error page is summarised, never passed through", async () => {
    server.reply(
      raw(
        502,
        "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad Gateway</h1><script>x()</script></body></html>",
        "text/html",
      ),
    );
    const [error] = ofType(await collect(openaiAt(server.url), request()), "error");
    expect(error?.error.status).toBe(502);
    expect(error?.error.message).toContain("502 Bad Gateway");
    expect(error?.error.message).not.toMatch(/[<>]/);
  });

  it("a connection cut mid-stream: text kept, error event, the half-streamed tool call never emitted", async () => {
    server.reply(
      sseThenCut(chatSse([text("partial "), toolStart, toolArgs('{"a":1}')], { done: false }), {
        "x-request-id": "req_cut",
      }),
    );
    const events = await collect(openaiAt(server.url), request());
    expect(textOf(events)).toBe("partial ");
    expect(ofType(events, "tool-call")).toEqual([]);
    expect(ofType(events, "error")[0]?.error).toMatchObject({ beforeStream: false, requestId: "req_cut" });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "error" });
  });

  it("a stream that closes cleanly before any finish reason is a failure too", async () => {
    server.reply(sse(chatSse([text("half"), toolStart, toolArgs('{"a":1}')], { done: false })));
    const events = await collect(openaiAt(server.url), request());
    expect(ofType(events, "tool-call")).toEqual([]);
    expect(ofType(events, "error")[0]?.error.message).toMatch(/ended before the model finished/);
  });

  it("a mid-stream error chunk (OpenAI/OpenRouter shape) ends the stream with its message", async () => {
    const body = chatSse([text("x"), toolStart, { error: { message: "Upstream overloaded", code: 502 } }]);
    server.reply(sse(body, { "x-request-id": "req_mid" }));
    const events = await collect(openaiAt(server.url), request());
    expect(ofType(events, "tool-call")).toEqual([]);
    expect(ofType(events, "error")).toEqual([
      {
        type: "error",
        error: { message: "Upstream overloaded", status: 502, requestId: "req_mid", beforeStream: false },
      },
    ]);
  });

  it("vLLM's mid-stream error shape {object:'error'} is an error, not a chunk", async () => {
    server.reply(sse(chatSse([text("x"), { object: "error", message: "CUDA out of memory" }])));
    const events = await collect(openaiAt(server.url), request());
    expect(ofType(events, "error")[0]?.error).toMatchObject({
      message: "CUDA out of memory",
      beforeStream: false,
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "error" });
  });

  it("a chunk that is not JSON becomes an error event, not a crash", async () => {
    server.reply(sse(`${chatSse([text("x")], { done: false })}data: {not json\n\n`));
    const events = await collect(openaiAt(server.url), request());
    expect(ofType(events, "error")).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "error" });
  });

  it("malformed tool JSON from the model becomes invalidArgs on that call", async () => {
    server.reply(sse(chatSse([toolStart, toolArgs('{"city": "Par'), toolFinish])));
    const events = await collect(openaiAt(server.url), request());
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "call_1",
        name: "f",
        args: undefined,
        invalidArgs: { raw: '{"city": "Par', message: expect.stringMatching(/not valid JSON/) },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("a server that never sends a byte is bounded by the timeout", async () => {
    server.reply(hang());
    const started = Date.now();
    const events = await collect(openaiAt(server.url, { timeoutMs: 150 }), request());
    expect(Date.now() - started).toBeLessThan(3_000);
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
    server.reply(sseThenHold(chatSse([text("first")], { done: false })));
    const controller = new AbortController();
    const events = [];
    for await (const event of openaiAt(server.url).stream(request(), controller.signal)) {
      events.push(event);
      controller.abort();
    }
    expect(events).toEqual([{ type: "text-delta", text: "first" }]);
    await server.requests[before]!.closed; // the server saw the socket close
  });

  it("cancellation before the response headers aborts the request and yields nothing", async () => {
    const before = server.requests.length;
    server.reply(hang());
    const controller = new AbortController();
    const done = collect(openaiAt(server.url), request(), controller.signal);
    const arrived = await server.requestArrived(before + 1);
    controller.abort();
    expect(await done).toEqual([]);
    await arrived.closed;
  });
});

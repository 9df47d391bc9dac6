import type { Provider, ProviderErrorInfo } from "../../../src/index.js";
import type { AnthropicProviderOptions } from "../../../src/providers/anthropic/anthropic-provider.js";
import type { OpenAIProviderOptions } from "../../../src/providers/openai/openai-provider.js";
import { chatSse, messagesSse } from "./mock-llm-server.js";
import { anthropicAt, openaiAt, TEST_ANTHROPIC_KEY, TEST_OPENAI_KEY } from "./providers.js";

/** What a stream carries, in order: text, or a tool call whose arguments arrive as `json`. */
export type StreamPart = { text: string } | { tool: { id: string; json: string } };

/** How a stream ends: with a finish reason, or not at all (the body just stops there). */
export type StreamEnd = "stop" | "tool_calls" | "open";

/**
 * One provider's API as its local fake server speaks it: the same fault written in each API's own
 * bytes, and the facts where the two APIs differ (status words, headers, retry-after syntax).
 */
export type FaultWire = {
  name: "anthropic" | "openai" | "openai-responses";
  key: string;
  provider(url: string, overrides?: Partial<AnthropicProviderOptions & OpenAIProviderOptions>): Provider;
  /** The response header the API puts its request id in. */
  requestIdHeader: string;
  /** A retry-after the SDK honours as "now" (the Anthropic SDK reads "0" as absent and backs off). */
  retryAfterNow: string;
  /** An error response body; the adapter's message for it is `${type}: ${message}`. */
  errorBody(type: string, message: string): unknown;
  /** The 429 error type. */
  rateLimitType: string;
  /** The 401 error type. */
  unauthorizedType: string;
  /** The server-side failure the API answers while overloaded, which the SDK retries. */
  overloaded: { status: number; type: string; message: string };
  /** An SSE body of `parts`, ended as `end` says. */
  stream(parts: StreamPart[], end: StreamEnd): string;
  /** The API's own error event in the middle of a stream, and the error the adapter makes of it. */
  midStreamError: { event: string; headers: Record<string, string>; error: ProviderErrorInfo };
  /** An SSE event whose data is not JSON. */
  notJsonEvent: string;
};

const anthropicEnd = { stop: "end_turn", tool_calls: "tool_use" } as const;
const anthropicError = (type: string, message: string) => ({
  type: "error",
  error: { type, message },
  request_id: "req_body",
});

export const anthropicWire: FaultWire = {
  name: "anthropic",
  key: TEST_ANTHROPIC_KEY,
  provider: (url, overrides) => anthropicAt(url, overrides),
  requestIdHeader: "request-id",
  retryAfterNow: "0.001",
  errorBody: anthropicError,
  rateLimitType: "rate_limit_error",
  unauthorizedType: "authentication_error",
  overloaded: { status: 529, type: "overloaded_error", message: "Overloaded" },
  stream(parts, end) {
    const blocks = parts.flatMap<{ type: string }>((part, index) =>
      "text" in part
        ? [
            { type: "content_block_start", index, content_block: { type: "text", text: "" } },
            { type: "content_block_delta", index, delta: { type: "text_delta", text: part.text } },
            { type: "content_block_stop", index },
          ]
        : [
            {
              type: "content_block_start",
              index,
              content_block: { type: "tool_use", id: part.tool.id, name: "f", input: {} },
            },
            {
              type: "content_block_delta",
              index,
              delta: { type: "input_json_delta", partial_json: part.tool.json },
            },
            { type: "content_block_stop", index },
          ],
    );
    const start = {
      type: "message_start",
      message: { id: "m", usage: { input_tokens: 10, output_tokens: 1 } },
    };
    const stop =
      end === "open"
        ? []
        : [
            { type: "message_delta", delta: { stop_reason: anthropicEnd[end] }, usage: { output_tokens: 5 } },
            { type: "message_stop" },
          ];
    return messagesSse([start, ...blocks, ...stop]);
  },
  midStreamError: {
    event: `event: error\ndata: ${JSON.stringify(anthropicError("overloaded_error", "Overloaded"))}\n\n`,
    headers: {},
    // The status is the one the API gives overloaded_error; the request id is the event's own.
    error: {
      message: "overloaded_error: Overloaded",
      status: 529,
      requestId: "req_body",
      beforeStream: false,
    },
  },
  notJsonEvent: "event: content_block_delta\ndata: {not json\n\n",
};

export const openaiWire: FaultWire = {
  name: "openai",
  key: TEST_OPENAI_KEY,
  provider: (url, overrides) => openaiAt(url, overrides),
  requestIdHeader: "x-request-id",
  retryAfterNow: "0",
  errorBody: (type, message) => ({ error: { message, type } }),
  rateLimitType: "requests",
  unauthorizedType: "invalid_request_error",
  overloaded: {
    status: 500,
    type: "server_error",
    message: "The server had an error processing your request.",
  },
  stream(parts, end) {
    let toolIndex = 0;
    const chunks = parts.flatMap<object>((part) => {
      if ("text" in part)
        return [{ id: "c", choices: [{ index: 0, delta: { content: part.text }, finish_reason: null }] }];
      const index = toolIndex++;
      const call = (delta: object) => ({
        id: "c",
        choices: [{ index: 0, delta: { tool_calls: [{ index, ...delta }] }, finish_reason: null }],
      });
      return [
        call({ id: part.tool.id, type: "function", function: { name: "f", arguments: "" } }),
        call({ function: { arguments: part.tool.json } }),
      ];
    });
    if (end === "open") return chatSse(chunks, { done: false });
    return chatSse([...chunks, { id: "c", choices: [{ index: 0, delta: {}, finish_reason: end }] }]);
  },
  midStreamError: {
    // The shape OpenAI and OpenRouter send inside a 200 stream; the request id is the response's.
    event: `data: ${JSON.stringify({ error: { message: "Upstream overloaded", code: 502 } })}\n\n`,
    headers: { "x-request-id": "req_mid" },
    error: { message: "Upstream overloaded", status: 502, requestId: "req_mid", beforeStream: false },
  },
  notJsonEvent: "data: {not json\n\n",
};

import {
  OpenAIResponsesProvider,
  type OpenAIResponsesProviderOptions,
} from "../../../src/providers/openai-responses/openai-responses-provider.js";
import type { FaultWire } from "./fault-wires.js";
import { messagesSse } from "./mock-llm-server.js";
import { TEST_OPENAI_KEY } from "./providers.js";

/** A Responses provider pointed at a mock server; no retries and a short timeout unless overridden. */
export function responsesAt(
  url: string,
  overrides: Partial<OpenAIResponsesProviderOptions> = {},
): OpenAIResponsesProvider {
  return new OpenAIResponsesProvider({
    id: "openai",
    apiKey: TEST_OPENAI_KEY,
    baseURL: `${url}/v1`,
    maxRetries: 0,
    timeoutMs: 5_000,
    maxRetryDelayMs: 1_000,
    ...overrides,
  });
}

/** One Responses stream event: its `type` and whatever else that kind carries. */
export type RsEvent = { type: string; [key: string]: unknown };

/** Frames Responses events as the API streams them: an `event:` line named by each `type`, no [DONE]. */
export const responsesSse = messagesSse;

/** A `response.completed` event with the given usage. */
export function completed(usage: object = { input_tokens: 10, output_tokens: 5 }): RsEvent {
  return { type: "response.completed", response: { id: "resp_1", status: "completed", usage } };
}

/** The events of a streamed text part. */
export function textEvents(text: string, itemId = "msg_1"): RsEvent[] {
  return [
    { type: "response.output_item.added", output_index: 0, item: { id: itemId, type: "message" } },
    { type: "response.output_text.delta", item_id: itemId, output_index: 0, content_index: 0, delta: text },
  ];
}

/** The events of a streamed function call, its arguments in one delta; `done` adds the item's end. */
export function callEvents(
  call: { itemId: string; callId: string; name: string; json: string },
  done = true,
): RsEvent[] {
  const item = { id: call.itemId, type: "function_call", call_id: call.callId, name: call.name };
  const events: RsEvent[] = [
    { type: "response.output_item.added", item: { ...item, arguments: "", status: "in_progress" } },
    { type: "response.function_call_arguments.delta", item_id: call.itemId, delta: call.json },
  ];
  if (done)
    events.push(
      { type: "response.function_call_arguments.done", item_id: call.itemId, arguments: call.json },
      { type: "response.output_item.done", item: { ...item, arguments: call.json, status: "completed" } },
    );
  return events;
}

/** A reasoning item: its summary parts streamed, then the item done with its encrypted content. */
export function reasoningEvents(id: string, parts: string[], encrypted: string): RsEvent[] {
  return [
    { type: "response.output_item.added", item: { id, type: "reasoning", summary: [] } },
    ...parts.flatMap((text, summary_index) => [
      { type: "response.reasoning_summary_part.added", item_id: id, summary_index },
      { type: "response.reasoning_summary_text.delta", item_id: id, summary_index, delta: text },
      { type: "response.reasoning_summary_part.done", item_id: id, summary_index },
    ]),
    {
      type: "response.output_item.done",
      item: {
        id,
        type: "reasoning",
        encrypted_content: encrypted,
        summary: parts.map((text) => ({ type: "summary_text", text })),
      },
    },
  ];
}

const errorEvent = {
  type: "error",
  sequence_number: 3,
  code: "server_error",
  message: "Upstream overloaded",
};

/** The Responses API as the fault table plays it (errors before the stream are Chat Completions' own). */
export const responsesWire: FaultWire = {
  name: "openai-responses",
  key: TEST_OPENAI_KEY,
  provider: (url, overrides) => responsesAt(url, overrides),
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
    let n = 0;
    const events = parts.flatMap((part) => {
      n++;
      if ("text" in part) return textEvents(part.text, `msg_${n}`);
      return callEvents({ itemId: `fc_${n}`, callId: part.tool.id, name: "f", json: part.tool.json });
    });
    return responsesSse(end === "open" ? events : [...events, completed()]);
  },
  midStreamError: {
    event: `event: error\ndata: ${JSON.stringify(errorEvent)}\n\n`,
    headers: { "x-request-id": "req_mid" },
    error: { message: "Upstream overloaded", requestId: "req_mid", beforeStream: false },
  },
  notJsonEvent: "event: response.output_text.delta\ndata: {not json\n\n",
};

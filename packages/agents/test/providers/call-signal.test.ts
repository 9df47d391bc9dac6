import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../../src/index.js";
import { collect, request, textOf } from "./helpers/collect.js";
import {
  chatSse,
  type MockLlmServer,
  messagesSse,
  sse,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { anthropicAt, openaiAt } from "./helpers/providers.js";
import { completed, responsesAt, responsesSse, textEvents } from "./helpers/responses-wire.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

const CALLS = 12;
const wires: [string, (url: string) => Provider, () => string][] = [
  [
    "Chat Completions",
    (url) => openaiAt(url),
    () => chatSse([{ id: "c", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }]),
  ],
  [
    "Anthropic Messages",
    (url) => anthropicAt(url),
    () =>
      messagesSse([
        { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
        { type: "message_stop" },
      ] as { type: string }[]),
  ],
  ["Responses", (url) => responsesAt(url), () => responsesSse([...textEvents("ok"), completed()])],
];

describe("a turn's signal across its model calls", () => {
  it.each(wires)("%s: many calls on one signal leave no abort listener on it", async (_name, at, body) => {
    const provider = at(server.url);
    const turn = new AbortController();
    for (let i = 0; i < CALLS; i++) {
      server.reply(sse(body()));
      expect(textOf(await collect(provider, request(), turn.signal))).toBe("ok");
    }
    // The SDKs add a listener per request to the signal they get and never remove it: handed the
    // turn's signal, it would hold one per call (and Node warns past ten).
    expect(getEventListeners(turn.signal, "abort")).toHaveLength(0);
  });
});

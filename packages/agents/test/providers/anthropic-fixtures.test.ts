import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderEvent } from "../../src/index.js";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import { dataLines, readFixture } from "./helpers/fixtures.js";
import { type MockLlmServer, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { anthropicAt } from "./helpers/providers.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function replay(fixture: string) {
  server.reply(sse(readFixture(fixture), { "request-id": "req_fixture" }));
  return collect(anthropicAt(server.url), request());
}

function thinkingOf(events: ProviderEvent[]) {
  return ofType(events, "thinking-delta");
}

describe("Anthropic adapter replaying recorded Messages streams", () => {
  it("anthropic_text.sse (docs): text, ping skipped, usage, stop", async () => {
    const events = await replay("anthropic_text.sse");
    expect(events).toEqual([
      { type: "text-delta", text: "Hello" },
      { type: "text-delta", text: "!" },
      { type: "usage", usage: { inputTokens: 25, outputTokens: 15 } },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("anthropic_text_sdk_fixture.sse: compact JSON variant", async () => {
    const events = await replay("anthropic_text_sdk_fixture.sse");
    expect(textOf(events)).toBe("Hello there!");
    expect(ofType(events, "usage")).toEqual([{ type: "usage", usage: { inputTokens: 11, outputTokens: 6 } }]);
  });

  it("anthropic_tool_use.sse (docs): text then one tool_use from input_json_delta fragments", async () => {
    const events = await replay("anthropic_tool_use.sse");
    expect(textOf(events)).toBe("Okay, let's check the weather for San Francisco, CA:");
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        args: { location: "San Francisco, CA", unit: "fahrenheit" },
      },
    ]);
    expect(ofType(events, "usage")[0]?.usage).toEqual({ inputTokens: 472, outputTokens: 89 });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("anthropic_tool_use_sdk_fixture.sse: cache fields reported as zero, not unknown", async () => {
    const events = await replay("anthropic_tool_use_sdk_fixture.sse");
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        name: "get_weather",
        args: { location: "Paris" },
      },
    ]);
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 377,
      outputTokens: 65,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it("anthropic_parallel_tool_use.sse: two tool_use blocks in one message, in block order", async () => {
    const events = await replay("anthropic_parallel_tool_use.sse");
    expect(ofType(events, "tool-call")).toEqual([
      { type: "tool-call", id: "toolu_01L8GVQapA1HmggQcrwboukH", name: "test_tool", args: { count: 1 } },
      { type: "tool-call", id: "toolu_01J5Fvzxu7DP1Uh59c1kr5JD", name: "test_tool", args: { count: 2 } },
    ]);
    expect(events.slice(-4).map((e) => e.type)).toEqual(["tool-call", "tool-call", "usage", "finish"]);
    expect(ofType(events, "usage")[0]?.usage).toMatchObject({ inputTokens: 418, outputTokens: 113 });
  });

  it("anthropic_thinking_docs.sse: thinking deltas, then the signature closing the block; no usage reported", async () => {
    const events = await replay("anthropic_thinking_docs.sse");
    const thinking = thinkingOf(events);
    expect(thinking.map((t) => t.text).join("")).toContain("10,800 + 1,350 + 81 = 12,231");
    expect(thinking.at(-1)).toEqual({
      type: "thinking-delta",
      text: "",
      signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...",
    });
    expect(textOf(events)).toBe("27 * 453 = 12,231");
    // The docs example carries no usage at all: tokens are unknown, so no usage event (not zeros).
    expect(ofType(events, "usage")).toEqual([]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("anthropic_thinking_recorded.sse: signature exact; input repeated in message_delta counted once", async () => {
    const fixture = readFixture("anthropic_thinking_recorded.sse");
    const events = await replay("anthropic_thinking_recorded.sse");
    const recordedSignature = dataLines(fixture)
      .map((d) => (d.delta as { signature?: string } | undefined)?.signature)
      .find(Boolean);
    const thinking = thinkingOf(events);
    expect(thinking.filter((t) => t.signature)).toEqual([
      { type: "thinking-delta", text: "", signature: recordedSignature },
    ]);
    expect(thinking.every((t) => t.text !== "" || t.signature)).toBe(true); // the empty delta is dropped
    expect(thinking.map((t) => t.text).join("")).toMatch(/^This is a straightforward question/);
    expect(ofType(events, "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 43, outputTokens: 282, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
  });

  it("anthropic_max_tokens_truncated_tool.sse: truncated tool JSON becomes invalidArgs, finish length", async () => {
    const events = await replay("anthropic_max_tokens_truncated_tool.sse");
    const [call] = ofType(events, "tool-call");
    expect(call).toMatchObject({ id: "toolu_01EKqbqmZrGRXy18eN7m9kvY", name: "make_file", args: undefined });
    expect(call?.invalidArgs?.raw).toMatch(/^\{"filename": "taxes.txt", "lines_of_text": \[/);
    expect(call?.invalidArgs?.message).toMatch(/not valid JSON/);
    expect(ofType(events, "usage")[0]?.usage).toMatchObject({ inputTokens: 450, outputTokens: 124 });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  it("anthropic_error_midstream.sse: overloaded error event ends the stream as an error, text kept", async () => {
    const events = await replay("anthropic_error_midstream.sse");
    expect(events).toEqual([
      { type: "text-delta", text: "Hello" },
      {
        type: "error",
        error: {
          message: "overloaded_error: Overloaded",
          status: 529,
          requestId: "req_fixture",
          beforeStream: false,
        },
      },
      { type: "finish", reason: "error" },
    ]);
  });

  it("anthropic_usage_examples.txt: cache writes and reads; input includes both", async () => {
    const lines = readFixture("anthropic_usage_examples.txt")
      .split("\n")
      .filter((l) => l.startsWith("data: "));
    for (const [start, expected] of [
      [lines[0]!, { inputTokens: 2 + 3068, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 3068 }],
      [
        lines.at(-1)!,
        { inputTokens: 12 + 2048, outputTokens: 7, cacheReadTokens: 2048, cacheWriteTokens: 0 },
      ],
    ] as const) {
      const rest = [
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } },
        { type: "message_stop" },
      ];
      const body = `event: message_start\n${start}\n\n${rest.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("")}`;
      server.reply(sse(body));
      const events = await collect(anthropicAt(server.url), request());
      expect(ofType(events, "usage")).toEqual([{ type: "usage", usage: expected }]);
    }
  });
});

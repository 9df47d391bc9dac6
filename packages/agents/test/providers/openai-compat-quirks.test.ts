import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderEvent } from "../../src/index.js";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import { chatSse, type MockLlmServer, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { openaiAt } from "./helpers/providers.js";

type ToolDelta = {
  index?: number | null;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: unknown };
};
const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) => ({
  id: "chatcmpl-q",
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const tools = (...calls: ToolDelta[]) => chunk({ tool_calls: calls });

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function run(body: string): Promise<ProviderEvent[]> {
  server.reply(sse(body));
  return collect(openaiAt(server.url, { id: "compat", apiKey: "" }), request());
}

const calls = (events: ProviderEvent[]) =>
  ofType(events, "tool-call").map(({ id, name, args }) => ({ id, name, args }));

describe("OpenAI-compatible server quirks", () => {
  it("Ollama (verbatim capture): whole arguments per chunk, role repeated, separate finish chunk", async () => {
    const body = [
      'data: {"id":"chatcmpl-18","object":"chat.completion.chunk","created":1744446075,"model":"qwen2.5-coder:7b-instruct-q8_0","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_wteop8bt","index":0,"type":"function","function":{"name":"run_command","arguments":"{\\"command\\":\\"ls\\"}"}}]},"finish_reason":null}]}',
      'data: {"id":"chatcmpl-18","object":"chat.completion.chunk","created":1744446075,"model":"qwen2.5-coder:7b-instruct-q8_0","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_rk2xye1l","index":1,"type":"function","function":{"name":"run_command","arguments":"{\\"command\\":\\"ls -l\\"}"}}]},"finish_reason":null}]}',
      'data: {"id":"chatcmpl-18","object":"chat.completion.chunk","created":1744446075,"model":"qwen2.5-coder:7b-instruct-q8_0","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"tool_calls"}]}',
      "data: [DONE]",
    ].join("\n\n");
    const events = await run(`${body}\n\n`);
    expect(calls(events)).toEqual([
      { id: "call_wteop8bt", name: "run_command", args: { command: "ls" } },
      { id: "call_rk2xye1l", name: "run_command", args: { command: "ls -l" } },
    ]);
    expect(ofType(events, "usage")).toEqual([]); // no usage reported: unknown, not zero
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("Ollama: index 0 reused for parallel calls with distinct ids", async () => {
    const events = await run(
      chatSse([
        tools({
          index: 0,
          id: "call_a",
          type: "function",
          function: { name: "read", arguments: '{"path": "a.rs"}' },
        }),
        tools({
          index: 0,
          id: "call_b",
          type: "function",
          function: { name: "read", arguments: '{"path": "b.rs"}' },
        }),
        chunk({}, "tool_calls"),
      ]),
    );
    expect(calls(events)).toEqual([
      { id: "call_a", name: "read", args: { path: "a.rs" } },
      { id: "call_b", name: "read", args: { path: "b.rs" } },
    ]);
  });

  it("Gemini/SambaNova: no index (or null), ids only on each call's first delta", async () => {
    const events = await run(
      chatSse([
        tools({ id: "c1", type: "function", function: { name: "f", arguments: '{"x":' } }),
        tools({ function: { arguments: "1}" } }),
        tools({ index: null, id: "c2", type: "function", function: { name: "g", arguments: "" } }),
        tools({ index: null, function: { arguments: '{"y":2}' } }),
        chunk({}, "stop"), // Gemini ends tool turns with "stop"
      ]),
    );
    expect(calls(events)).toEqual([
      { id: "c1", name: "f", args: { x: 1 } },
      { id: "c2", name: "g", args: { y: 2 } },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  it("missing or empty ids get generated ones, stable and unique", async () => {
    const events = await run(
      chatSse([
        tools({ index: 0, id: "", function: { name: "f", arguments: "{}" } }),
        tools({ index: 1, function: { name: "g", arguments: "{" } }),
        tools({ index: 1, function: { arguments: "}" } }),
        chunk({}, "tool_calls"),
      ]),
    );
    const out = calls(events);
    expect(out.map((c) => c.name)).toEqual(["f", "g"]);
    expect(out.every((c) => /^call_[0-9a-f]{24}$/.test(c.id))).toBe(true);
    expect(new Set(out.map((c) => c.id)).size).toBe(2);
  });

  it("vLLM/LiteLLM: the id repeated on every delta is one call; an id reused by a second call is replaced", async () => {
    const events = await run(
      chatSse([
        tools({ index: 0, id: "dup", type: "function", function: { name: "f", arguments: '{"a"' } }),
        tools({ index: 0, id: "dup", type: "function", function: { arguments: ":1}" } }),
        tools({ index: 1, id: "dup", type: "function", function: { name: "g", arguments: "{}" } }),
        chunk({}, "tool_calls"),
      ]),
    );
    const out = calls(events);
    expect(out[0]).toEqual({ id: "dup", name: "f", args: { a: 1 } });
    expect(out[1]).toMatchObject({ name: "g", args: {} });
    expect(out[1]?.id).not.toBe("dup");
  });

  it("LM Studio empty name and llama.cpp repeated name on continuations are not concatenated", async () => {
    const events = await run(
      chatSse([
        tools({
          index: 0,
          id: "c",
          type: "function",
          function: { name: "add_two_numbers", arguments: '{"a":' },
        }),
        tools({ index: 0, type: "function", function: { name: "", arguments: "1," } }),
        tools({ index: 0, function: { name: "add_two_numbers", arguments: '"b":2}' } }),
        chunk({}, "tool_calls"),
      ]),
    );
    expect(calls(events)).toEqual([{ id: "c", name: "add_two_numbers", args: { a: 1, b: 2 } }]);
  });

  it("vLLM (verbatim): no arguments key at first, usage on every chunk, empty delta with finish", async () => {
    const body = [
      'data: {"id":"chat-2267f7e2910a4254bac0650ba74cfc1c","object":"chat.completion.chunk","created":1733162241,"model":"meta/llama-3.1-8b-instruct:fp8","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-b3b307239370432d9910d4b79b4dbbaa","type":"function","index":0,"function":{"name":"searchGoogle"}}]},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":226,"total_tokens":233,"completion_tokens":7}}',
      'data: {"id":"chat-2267f7e2910a4254bac0650ba74cfc1c","object":"chat.completion.chunk","created":1733162241,"model":"meta/llama-3.1-8b-instruct:fp8","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]},"logprobs":null,"finish_reason":"tool_calls","stop_reason":128008}],"usage":{"prompt_tokens":226,"total_tokens":246,"completion_tokens":20}}',
      'data: {"id":"chat-2267f7e2910a4254bac0650ba74cfc1c","object":"chat.completion.chunk","created":1733162241,"model":"meta/llama-3.1-8b-instruct:fp8","choices":[],"usage":{"prompt_tokens":226,"total_tokens":246,"completion_tokens":20}}',
      "data: [DONE]",
    ].join("\n\n");
    const events = await run(`${body}\n\n`);
    expect(calls(events)).toEqual([
      { id: "chatcmpl-tool-b3b307239370432d9910d4b79b4dbbaa", name: "searchGoogle", args: {} },
    ]);
    // Usage on every chunk is cumulative: reported once, with the last values, never summed.
    expect(ofType(events, "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 226, outputTokens: 20 } },
    ]);
  });

  it("OpenRouter: comment keep-alives, extra fields, usage chunk after finish with non-empty choices", async () => {
    const extra = { provider: "xAI", native_finish_reason: null };
    const body = chatSse(
      [
        chunk({ role: "assistant", content: "" }, null, extra),
        chunk({ role: "assistant", content: "Hel", reasoning_details: [] }, null, extra),
        chunk({ role: "assistant", content: "lo" }, "stop", extra),
        chunk({ role: "assistant", content: "" }, null, {
          ...extra,
          usage: {
            prompt_tokens: 687,
            completion_tokens: 187,
            total_tokens: 874,
            cost: 0.00333825,
            is_byok: false,
            prompt_tokens_details: { cached_tokens: 679, audio_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 118, image_tokens: 0 },
          },
        }),
      ],
      { comments: true },
    );
    const events = await run(`: OPENROUTER PROCESSING\n\n${body}`);
    expect(textOf(events)).toBe("Hello");
    expect(ofType(events, "usage")[0]?.usage).toEqual({
      inputTokens: 687,
      outputTokens: 187,
      cacheReadTokens: 679,
      reasoningTokens: 118,
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("Azure: a first chunk with empty choices and blank ids is skipped", async () => {
    const events = await run(
      chatSse([
        { id: "", model: "", object: "", choices: [], prompt_filter_results: [] },
        chunk({ content: "hi" }, "stop"),
      ]),
    );
    expect(textOf(events)).toBe("hi");
  });

  it("llama.cpp/DeepSeek: reasoning_content as thinking, usage on the finish chunk, no [DONE]", async () => {
    const events = await run(
      chatSse(
        [
          chunk({ role: "assistant", content: null }),
          chunk({ reasoning_content: "thinking..." }),
          chunk({ content: "answer" }),
          chunk({}, "stop", {
            usage: { completion_tokens: 247, prompt_tokens: 1085, total_tokens: 1332 },
            timings: { prompt_n: 1085 },
          }),
        ],
        { done: false },
      ),
    );
    expect(events).toEqual([
      { type: "thinking-delta", text: "thinking..." },
      { type: "text-delta", text: "answer" },
      { type: "usage", usage: { inputTokens: 1085, outputTokens: 247 } },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("arguments sent as an object instead of a string, and weird field types, do not crash", async () => {
    const events = await run(
      chatSse([
        chunk({ content: 42, tool_calls: "nope" }),
        { choices: "not an array", usage: "none" },
        tools({ index: 0, id: "c", function: { name: "f", arguments: { city: "Oslo" } } }),
        chunk({}, "tool_calls"),
      ]),
    );
    expect(calls(events)).toEqual([{ id: "c", name: "f", args: { city: "Oslo" } }]);
  });
});

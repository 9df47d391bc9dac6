import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLoopContext,
  defineTool,
  drainLoop,
  type LlmCallRecord,
  ok,
  type Provider,
  runAgentLoop,
  type Tool,
} from "../../src/index.js";
import { readFixture } from "./helpers/fixtures.js";
import {
  chatSse,
  type MockLlmServer,
  messagesSse,
  sse,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { anthropicAt, openaiAt } from "./helpers/providers.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

/** Resolves once `n` callers have arrived: proves the two tool calls run at the same time. */
function barrier(n: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return async () => {
    arrived++;
    if (arrived === n) open();
    await opened;
  };
}

async function runTurn(provider: Provider, tools: Tool[]) {
  const records: LlmCallRecord[] = [];
  const ctx = createLoopContext({}, { wallClockTimer: false, onLlmCall: (r) => records.push(r) });
  const result = await drainLoop(
    runAgentLoop({
      provider,
      from: {
        kind: "start",
        model: "test-model",
        systemPrompt: "You are a test agent.",
        history: [{ role: "user", content: "go" }],
      },
      tools,
      ctx,
    }),
  );
  return { result, records };
}

describe("a whole turn through runAgentLoop on a real adapter", () => {
  it("OpenAI: two parallel tool calls (recorded stream), results paired, final answer, usage summed", async () => {
    const before = server.requests.length;
    const together = barrier(2);
    const tools = [
      defineTool({
        name: "get_country",
        description: "The user's country.",
        args: z.object({}),
        permissionClass: "safe",
        execute: async () => {
          await together();
          return ok("Mexico");
        },
      }),
      defineTool({
        name: "get_product_name",
        description: "The product's name.",
        args: z.object({}),
        permissionClass: "safe",
        execute: async () => {
          await together();
          return ok("Pro Widget");
        },
      }),
    ];
    const final = chatSse([
      { id: "c2", choices: [{ index: 0, delta: { role: "assistant", content: "Pro Widget ships to " } }] },
      { id: "c2", choices: [{ index: 0, delta: { content: "Mexico." }, finish_reason: "stop" }] },
      {
        id: "c2",
        choices: [],
        usage: {
          prompt_tokens: 500,
          completion_tokens: 12,
          prompt_tokens_details: { cached_tokens: 256 },
          completion_tokens_details: { reasoning_tokens: 4 },
        },
      },
    ]);
    server.reply(sse(readFixture("openai_chat_parallel_tools_include_usage.sse")), sse(final));

    const { result, records } = await runTurn(openaiAt(server.url), tools);

    expect(result.status).toBe("complete");
    expect(result.text).toBe("Pro Widget ships to Mexico.");
    expect(result.usage).toMatchObject({
      input_tokens: 364 + 500,
      output_tokens: 40 + 12,
      cache_read_tokens: 0 + 256,
      reasoning_tokens: 0 + 4,
      llm_calls: 2,
      tool_calls: 2,
    });
    expect(records).toHaveLength(2);
    const second = server.requests[before + 1]!.body as { messages: Record<string, unknown>[] };
    const [assistant, ...results] = second.messages.slice(-3);
    expect(assistant).toMatchObject({
      role: "assistant",
      tool_calls: [
        { id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", function: { name: "get_country", arguments: "{}" } },
        { id: "call_b51ijcpFkDiTQG1bQzsrmtW5", function: { name: "get_product_name", arguments: "{}" } },
      ],
    });
    expect(results).toEqual([
      {
        role: "tool",
        tool_call_id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z",
        content: expect.stringContaining("Mexico"),
      },
      {
        role: "tool",
        tool_call_id: "call_b51ijcpFkDiTQG1bQzsrmtW5",
        content: expect.stringContaining("Pro Widget"),
      },
    ]);
  });

  it("Anthropic: two parallel tool_use blocks (recorded stream), tool_result blocks, final answer, usage summed", async () => {
    const before = server.requests.length;
    const together = barrier(2);
    const tools = [
      defineTool({
        name: "test_tool",
        description: "Counts.",
        args: z.object({ count: z.number() }),
        permissionClass: "safe",
        execute: async ({ count }) => {
          await together();
          return ok(`counted ${count}`);
        },
      }),
    ];
    const final = messagesSse([
      {
        type: "message_start",
        message: {
          id: "m2",
          usage: {
            input_tokens: 50,
            cache_read_input_tokens: 400,
            cache_creation_input_tokens: 100,
            output_tokens: 1,
          },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Counted to 2." } },
      { type: "content_block_stop", index: 0 },
      // Newer API revisions (and proxies) repeat the input usage here: it must not be added twice.
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: {
          input_tokens: 50,
          cache_read_input_tokens: 400,
          cache_creation_input_tokens: 100,
          output_tokens: 9,
        },
      },
      { type: "message_stop" },
    ] as { type: string }[]);
    server.reply(sse(readFixture("anthropic_parallel_tool_use.sse")), sse(final));

    const { result } = await runTurn(anthropicAt(server.url), tools);

    expect(result.status).toBe("complete");
    expect(result.text).toBe("Counted to 2.");
    expect(result.usage).toMatchObject({
      input_tokens: 418 + (50 + 400 + 100),
      output_tokens: 113 + 9,
      cache_read_tokens: 0 + 400,
      cache_write_tokens: 0 + 100,
      llm_calls: 2,
      tool_calls: 2,
    });
    const second = server.requests[before + 1]!.body as { messages: { role: string; content: unknown[] }[] };
    expect(second.messages.at(-2)).toMatchObject({
      role: "assistant",
      content: [
        { type: "text" },
        { type: "tool_use", id: "toolu_01L8GVQapA1HmggQcrwboukH", input: { count: 1 } },
        { type: "tool_use", id: "toolu_01J5Fvzxu7DP1Uh59c1kr5JD", input: { count: 2 } },
      ],
    });
    expect(second.messages.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_01L8GVQapA1HmggQcrwboukH",
          content: expect.stringContaining("counted 1"),
        },
        {
          type: "tool_result",
          tool_use_id: "toolu_01J5Fvzxu7DP1Uh59c1kr5JD",
          content: expect.stringContaining("counted 2"),
          // The newest block is where this call's cache write ends (ANTHROPIC_PROMPT_CACHE is on by default).
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLoopContext,
  defineTool,
  drainLoop,
  type LlmCallRecord,
  type ModelMessage,
  ok,
  type Provider,
  runAgentLoop,
} from "../../src/index.js";
import { collect, request } from "./helpers/collect.js";
import { WEATHER_TOOL } from "./helpers/history.js";
import { type MockLlmServer, messagesSse, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { anthropicAt } from "./helpers/providers.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

type Usage = Record<string, number>;
const answer = (text: string, usage: Usage = { input_tokens: 1, output_tokens: 1 }) =>
  sse(
    messagesSse([
      { type: "message_start", message: { id: "m", usage } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ] as { type: string }[]),
  );
const toolUse = (id: string, n: number) =>
  sse(
    messagesSse([
      { type: "message_start", message: { id: `m${n}`, usage: { input_tokens: 1, output_tokens: 1 } } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id, name: "lookup", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify({ n }) },
      },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ] as { type: string }[]),
  );

type Block = { type: string; cache_control?: unknown } & Record<string, unknown>;
type Body = {
  system?: string | Block[];
  tools?: Block[];
  messages: { role: string; content: Block[] }[];
} & Record<string, unknown>;

/** Where the request's breakpoints are: "tool:i", "system", "message:i:block:j". */
function breakpoints(body: Body): string[] {
  const out: string[] = [];
  for (const [i, t] of (body.tools ?? []).entries()) if (t.cache_control) out.push(`tool:${i}`);
  if (Array.isArray(body.system)) for (const b of body.system) if (b.cache_control) out.push("system");
  for (const [i, m] of body.messages.entries())
    for (const [j, b] of m.content.entries()) if (b.cache_control) out.push(`message:${i}:block:${j}`);
  return out;
}

/** The body without its cache marks, as the prefix the cache compares. */
function unmarked(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v)));
}

// Three turns of a thread, the last one asking again: the newest message is a user message.
const THREAD: ModelMessage[] = [
  { role: "user", content: "first question" },
  { role: "assistant", text: "first answer" },
  { role: "user", content: "second question" },
  { role: "assistant", text: "second answer" },
  { role: "user", content: "third question" },
];

describe("Anthropic prompt caching (the cache_control breakpoints the server receives)", () => {
  it("marks the last tool, the system prompt, the newest message and the user message before it: four", async () => {
    const before = server.requests.length;
    server.reply(answer("ok"));
    await collect(
      anthropicAt(server.url),
      request({ messages: THREAD, tools: [WEATHER_TOOL, { ...WEATHER_TOOL, name: "other" }] }),
    );
    const body = server.requests[before]!.body as Body;
    expect(breakpoints(body)).toEqual(["tool:1", "system", "message:2:block:0", "message:4:block:0"]);
    expect(body.system).toEqual([
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.messages[4]).toEqual({
      role: "user",
      content: [{ type: "text", text: "third question", cache_control: { type: "ephemeral" } }],
    });
    // Nothing else changed: the body without its marks is the uncached body.
    server.reply(answer("ok"));
    await collect(
      anthropicAt(server.url, { promptCache: false }),
      request({ messages: THREAD, tools: [WEATHER_TOOL, { ...WEATHER_TOOL, name: "other" }] }),
    );
    const plain = server.requests[before + 1]!.body as Body;
    expect(JSON.stringify(plain)).not.toContain("cache_control");
    expect(plain.system).toBe("You are terse.");
    expect(unmarked({ ...body, system: "You are terse." })).toEqual(plain);
  });

  it("a first message without tools has two breakpoints (system and the message); none at all with the cache off", async () => {
    const before = server.requests.length;
    server.reply(answer("ok"), answer("ok"));
    await collect(anthropicAt(server.url), request());
    await collect(anthropicAt(server.url, { promptCache: false }), request());
    expect(breakpoints(server.requests[before]!.body as Body)).toEqual(["system", "message:0:block:0"]);
    expect(JSON.stringify(server.requests[before + 1]!.body)).not.toContain("cache_control");
  });

  it("the next turn's request reads what this one wrote: its second message breakpoint sits where this one's last did", async () => {
    const before = server.requests.length;
    server.reply(answer("first"), answer("second"));
    const provider = anthropicAt(server.url);
    const first = THREAD.slice(0, 3);
    await collect(provider, request({ messages: first }));
    await collect(
      provider,
      request({ messages: [...first, { role: "assistant", text: "x" }, { role: "user", content: "next" }] }),
    );
    const a = server.requests[before]!.body as Body;
    const b = server.requests[before + 1]!.body as Body;
    const lastOfA = breakpoints(a).at(-1);
    expect(lastOfA).toBe("message:2:block:0");
    expect(breakpoints(b)).toContain(lastOfA);
    // The prefix up to that block is byte for byte the same once the marks are set aside.
    expect(unmarked(b.messages.slice(0, 3))).toEqual(unmarked(a.messages));
  });

  it("along a tool loop: every step at most four breakpoints, each step's previous write marked again, the results' last block carrying one", async () => {
    const before = server.requests.length;
    const steps = 6;
    const replies = Array.from({ length: steps - 1 }, (_, i) => toolUse(`toolu_${i + 1}`, i + 1));
    server.reply(...replies, answer("done"));
    const lookup = defineTool({
      name: "lookup",
      description: "Looks a number up.",
      args: z.object({ n: z.number() }),
      permissionClass: "safe",
      execute: async ({ n }) => ok(`result ${n} `.repeat(50)),
    });
    const ctx = createLoopContext({}, { wallClockTimer: false });
    const result = await drainLoop(
      runAgentLoop({
        provider: anthropicAt(server.url),
        from: { kind: "start", model: "m", systemPrompt: "You look things up.", history: THREAD.slice(0, 1) },
        tools: [lookup],
        ctx,
      }),
    );
    expect(result.status).toBe("complete");
    const bodies = server.requests.slice(before).map((r) => r.body as Body);
    expect(bodies).toHaveLength(steps);
    for (const [i, body] of bodies.entries()) {
      const marks = breakpoints(body);
      expect(marks.length).toBeLessThanOrEqual(4);
      expect(marks.slice(0, 2)).toEqual(["tool:0", "system"]);
      const newest = body.messages.length - 1;
      expect(marks).toContain(`message:${newest}:block:${body.messages[newest]!.content.length - 1}`);
      if (i === 0) continue;
      // The step before wrote up to its newest block; this step marks that block again and sends the
      // same prefix, so the cache reads it.
      const previous = bodies[i - 1]!;
      const previousEnd = breakpoints(previous).at(-1)!;
      expect(marks).toContain(previousEnd);
      expect(unmarked(body.messages.slice(0, previous.messages.length))).toEqual(unmarked(previous.messages));
      expect(body.messages[newest]!.content.at(-1)).toMatchObject({ type: "tool_result" });
    }
  });

  it("never marks a thinking block (the API refuses it): a newest message of thinking alone goes unmarked", async () => {
    const before = server.requests.length;
    server.reply(answer("ok"));
    await collect(
      anthropicAt(server.url),
      request({
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", text: "", thinking: [{ text: "hm", signature: "sig" }] },
        ],
      }),
    );
    const body = server.requests[before]!.body as Body;
    expect(body.messages[1]!.content).toEqual([{ type: "thinking", thinking: "hm", signature: "sig" }]);
    expect(breakpoints(body)).toEqual(["system", "message:0:block:0"]);
  });

  it("prices cache reads and writes as Anthropic bills them, in the ledger record of the call", async () => {
    server.reply(
      answer("ok", {
        input_tokens: 100,
        cache_read_input_tokens: 10_000,
        cache_creation_input_tokens: 2_000,
        output_tokens: 1,
      }),
    );
    const records: LlmCallRecord[] = [];
    const provider: Provider = anthropicAt(server.url);
    const ctx = createLoopContext({}, { wallClockTimer: false, onLlmCall: (r) => records.push(r) });
    await drainLoop(
      runAgentLoop({
        provider,
        from: { kind: "start", model: "claude-sonnet-4-5", systemPrompt: "s", history: THREAD.slice(0, 1) },
        tools: [],
        ctx,
      }),
    );
    const [record] = records;
    expect(record).toMatchObject({
      inputTokens: 100 + 10_000 + 2_000,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 2_000,
      outputTokens: 1,
      costKnown: true,
    });
    // claude-sonnet-4-5: $3 per million input, reads 0.1x, 5-minute writes 1.25x, output $15.
    const expected = (100 * 3 + 10_000 * 0.3 + 2_000 * 3.75 + 1 * 15) / 1_000_000;
    expect(record!.costUsd).toBeCloseTo(expected, 12);
    // The same tokens uncached would have cost $0.036315: a read is a tenth of input.
    expect(record!.costUsd).toBeLessThan(((100 + 10_000 + 2_000) * 3 + 15) / 1_000_000);
  });
});

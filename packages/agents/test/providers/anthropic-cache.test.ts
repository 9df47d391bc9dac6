import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLlmCallRecord, createProviderRegistry, type ModelMessage } from "../../src/index.js";
import { collect, ofType, request } from "./helpers/collect.js";
import { HISTORY, WEATHER_TOOL } from "./helpers/history.js";
import { type MockLlmServer, messagesSse, sse, startMockLlmServer } from "./helpers/mock-llm-server.js";
import { anthropicAt } from "./helpers/providers.js";

const DONE = messagesSse([
  { type: "message_start", message: { id: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
  { type: "message_stop" },
] as { type: string }[]);

type Block = { type: string; cache_control?: unknown };
type Body = {
  system?: string | Block[];
  tools?: Block[];
  messages: { role: string; content: Block[] }[];
};

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

async function sentBody(
  messages: ModelMessage[],
  promptCache: boolean,
  tools = [WEATHER_TOOL],
): Promise<Body> {
  server.reply(sse(DONE));
  await collect(anthropicAt(server.url, { promptCache }), request({ messages, tools }));
  return server.requests.at(-1)!.body as Body;
}

/** Where the breakpoints are: "tool:i", "system:i", "msg:i:j". */
function breakpoints(body: Body): string[] {
  const out: string[] = [];
  for (const [i, t] of (body.tools ?? []).entries()) if (t.cache_control) out.push(`tool:${i}`);
  const system = Array.isArray(body.system) ? body.system : [];
  for (const [i, b] of system.entries()) if (b.cache_control) out.push(`system:${i}`);
  for (const [i, m] of body.messages.entries())
    for (const [j, b] of m.content.entries()) if (b.cache_control) out.push(`msg:${i}:${j}`);
  for (const at of out) {
    const [kind, i, j] = at.split(":");
    const block =
      kind === "tool"
        ? body.tools![+i!]
        : kind === "system"
          ? (body.system as Block[])[+i!]
          : body.messages[+i!]!.content[+j!];
    expect(block!.cache_control).toEqual({ type: "ephemeral" });
  }
  return out;
}

/** The content the cache keys on: the markers themselves are not part of the prefix. */
function unmarked(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v));
}

/** A tool loop after `steps` calls: user question, then (assistant tool_use, tool result) per step. */
function loopHistory(steps: number): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: "user", content: "Weather in 30 cities, one by one." }];
  for (let i = 0; i < steps; i++) {
    messages.push({
      role: "assistant",
      text: i === 0 ? "" : `Step ${i}.`,
      thinking: [{ text: `think ${i}`, signature: `sig-${i}` }],
      toolCalls: [{ id: `call_${i}`, name: "get_weather", args: { city: `c${i}` } }],
    });
    messages.push({ role: "tool", toolCallId: `call_${i}`, name: "get_weather", content: `c${i}: ${i}C` });
  }
  return messages;
}

describe("Anthropic prompt caching (cache_control breakpoints in the body)", () => {
  it("marks the last tool, the system prompt, the newest message and the previous user message", async () => {
    const body = await sentBody(HISTORY, true);
    expect(body.system).toEqual([
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    // messages: 0 user (text, image), 1 assistant (thinking…tool_use), 2 user (results + "And tomorrow?")
    expect(breakpoints(body)).toEqual(["tool:0", "system:0", "msg:0:1", "msg:2:2"]);
    expect(body.messages[2]!.content[2]).toMatchObject({ type: "text", text: "And tomorrow?" });
  });

  it("along a tool loop: at most four, the newest results and the previous step's results, never on thinking", async () => {
    const bodies: Body[] = [];
    for (let steps = 0; steps <= 6; steps++) bodies.push(await sentBody(loopHistory(steps), true));
    for (const [steps, body] of bodies.entries()) {
      const marks = breakpoints(body);
      expect(marks.length).toBeLessThanOrEqual(4);
      expect(marks.slice(0, 2)).toEqual(["tool:0", "system:0"]);
      const last = body.messages.length - 1;
      expect(marks).toContain(`msg:${last}:0`);
      if (steps > 0) expect(marks).toContain(`msg:${last - 2}:0`);
      for (const m of body.messages)
        for (const b of m.content) if (b.type === "thinking") expect(b.cache_control).toBeUndefined();
    }
    // Each step's newest breakpoint is where the next step puts its second one: the next call reads it.
    for (let s = 1; s < bodies.length; s++) {
      const prev = bodies[s - 1]!;
      const here = bodies[s]!;
      const written = prev.messages.length - 1;
      expect(here.messages[written]!.content.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
      expect(unmarked(here.messages.slice(0, written + 1))).toBe(unmarked(prev.messages));
    }
  });

  it("the next turn of a thread reads what the previous turn's last call wrote", async () => {
    const turn1 = [...loopHistory(2)];
    const first = await sentBody(turn1, true);
    const turn2: ModelMessage[] = [
      ...turn1,
      { role: "assistant", text: "Done." },
      { role: "user", content: "And Oslo?" },
    ];
    const second = await sentBody(turn2, true);
    const written = first.messages.length - 1;
    expect(breakpoints(second)).toEqual(["tool:0", "system:0", `msg:${written}:0`, `msg:${written + 2}:0`]);
    expect(unmarked(second.messages.slice(0, written + 1))).toBe(unmarked(first.messages));
  });

  it("an assistant message ending in thinking gets its breakpoint on its last other block; no tools, no system: two", async () => {
    server.reply(sse(DONE));
    await collect(
      anthropicAt(server.url, { promptCache: true }),
      request({
        systemPrompt: "",
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", text: "   ", thinking: [{ text: "t", signature: "s" }] },
          { role: "user", content: "again" },
        ],
      }),
    );
    const body = server.requests.at(-1)!.body as Body;
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
    expect(breakpoints(body)).toEqual(["msg:0:0", "msg:2:0"]);
    expect(body.messages[1]!.content).toEqual([{ type: "thinking", thinking: "t", signature: "s" }]);
  });

  it("promptCache off: no cache_control anywhere and the system prompt a plain string", async () => {
    const body = await sentBody(HISTORY, false);
    expect(JSON.stringify(body)).not.toContain("cache_control");
    expect(body.system).toBe("You are terse.");
  });
});

describe("ANTHROPIC_PROMPT_CACHE through the registry", () => {
  it("on by default, off when the config says so", async () => {
    for (const [promptCache, marked] of [
      [undefined, true],
      [false, false],
    ] as const) {
      const registry = createProviderRegistry({
        anthropic: {
          apiKey: "k",
          baseURL: server.url,
          ...(promptCache === undefined ? {} : { promptCache }),
        },
        maxRetries: 0,
      });
      server.reply(sse(DONE));
      await collect(registry.get("anthropic")!, request({ tools: [WEATHER_TOOL] }));
      expect(JSON.stringify(server.requests.at(-1)!.body).includes("cache_control")).toBe(marked);
    }
  });
});

describe("Anthropic cache usage in the ledger", () => {
  it("prices plain input, cache reads (0.1x) and writes (1.25x) at claude-sonnet-4-5 prices", async () => {
    server.reply(
      sse(
        messagesSse([
          {
            type: "message_start",
            message: {
              id: "m",
              usage: {
                input_tokens: 200,
                cache_read_input_tokens: 10_000,
                cache_creation_input_tokens: 2_000,
                output_tokens: 1,
              },
            },
          },
          { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 500 } },
          { type: "message_stop" },
        ] as { type: string }[]),
      ),
    );
    const events = await collect(anthropicAt(server.url, { promptCache: true }), request());
    const [usage] = ofType(events, "usage");
    expect(usage!.usage).toEqual({
      inputTokens: 12_200,
      outputTokens: 500,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 2_000,
    });
    const record = buildLlmCallRecord({
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      operation: "turn",
      depth: 0,
      parentId: null,
      latencyMs: 1,
      startedAt: 0,
      usage: usage!.usage,
    });
    expect(record.costKnown).toBe(true);
    expect(record.inputTokens).toBe(12_200);
    // 200×$3 + 10000×$0.30 + 2000×$3.75 + 500×$15, per million tokens.
    expect(record.costUsd).toBeCloseTo((600 + 3_000 + 7_500 + 7_500) / 1_000_000, 12);
  });
});

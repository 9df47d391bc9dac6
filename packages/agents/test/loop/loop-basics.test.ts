import { describe, expect, test } from "vitest";
import { z } from "zod";
import { defineTool, ok } from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { deferred, echoTool, runLoop, toolUpdates } from "./helpers.js";

describe("runAgentLoop from a start", () => {
  test("zero tool calls: one text result and no nested events", async () => {
    const provider = new ScriptedProvider([{ text: ["Hel", "lo"] }]);
    const { events, result } = await runLoop(provider, [echoTool]);
    expect(result.status).toBe("complete");
    expect(result.text).toBe("Hello");
    expect(toolUpdates(events)).toEqual([]);
    const chunks = events.filter((e) => e.type === "chunk");
    expect(chunks.map((c) => c.content)).toEqual(["Hel", "lo"]);
    for (const c of chunks) expect(c).toMatchObject({ parent_id: null, depth: 0 });
    expect(provider.requests[0]?.tools.map((t) => t.name)).toEqual(["echo"]);
    provider.assertComplete();
  });

  test("results follow the model's call order whatever order the calls finish in", async () => {
    const gates = [deferred(), deferred(), deferred()];
    const slow = defineTool({
      name: "slow",
      description: "waits for its gate",
      args: z.object({ i: z.number() }),
      permissionClass: "safe",
      execute: async ({ i }) => {
        await gates[i]?.promise;
        return ok(`r${i}`);
      },
    });
    const provider = new ScriptedProvider([
      { toolCalls: [0, 1, 2].map((i) => ({ name: "slow", args: { i } })) },
      { text: "done" },
    ]);
    const run = runLoop(provider, [slow], {
      onEvent: (e) => {
        // Release in reverse order once all three started.
        if (e.type === "tool_call_update" && e.status === "start" && e.tool_call_id.endsWith("_3")) {
          gates[2]?.resolve();
        }
        if (e.type === "tool_call_update" && e.status === "end") {
          if (e.result === "r2") gates[1]?.resolve();
          if (e.result === "r1") gates[0]?.resolve();
        }
      },
    });
    const { events, result } = await run;
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.map((e) => e.result)).toEqual(["r2", "r1", "r0"]);
    const second = provider.requests[1]?.messages ?? [];
    expect(second.filter((m) => m.role === "tool").map((m) => m.role === "tool" && m.content)).toEqual([
      "r0",
      "r1",
      "r2",
    ]);
    expect(result.status).toBe("complete");
  });

  test("invalid arguments give an is_error result the model can retry after", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "echo", args: { value: 5 } }] },
      { toolCalls: [{ name: "echo", args: { value: "five" } }] },
      { text: "ok" },
    ]);
    const { events, result } = await runLoop(provider, [echoTool]);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends[0]).toMatchObject({ is_error: true });
    expect(String(ends[0]?.result)).toContain("invalid arguments for echo: value");
    expect(ends[1]).toMatchObject({ is_error: false, result: "five" });
    const retry = provider.requests[1]?.messages.at(-1);
    expect(retry).toMatchObject({ role: "tool", isError: true });
    expect(result.status).toBe("complete");
    provider.assertComplete();
  });

  test("arguments the provider could not parse become an error result", async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { name: "echo", invalidArgs: { raw: '{"value": "x', message: "Unexpected end of JSON" } },
        ],
      },
      { text: "sorry" },
    ]);
    const { events, result } = await runLoop(provider, [echoTool]);
    const [start, end] = toolUpdates(events);
    expect(start).toMatchObject({ status: "start", args: '{"value": "x' });
    expect(end).toMatchObject({ status: "end", is_error: true });
    expect(String(end?.result)).toContain("could not parse the arguments of echo: Unexpected end of JSON");
    expect(result.status).toBe("complete");
    expect(result.usage.tool_calls).toBe(0);
  });

  test("a tool that throws gives an is_error result and the loop goes on", async () => {
    const boom = defineTool({
      name: "boom",
      description: "throws",
      args: z.object({}),
      permissionClass: "safe",
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "boom" }, { name: "nope" }] },
      { text: "recovered" },
    ]);
    const { events, result } = await runLoop(provider, [boom]);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    const boomEnd = ends.find((e) => e.name === "boom");
    // A bug's message stays on the server (logged under the ref): the model and clients get the ref.
    expect(boomEnd).toMatchObject({ is_error: true });
    expect(String(boomEnd?.result)).toMatch(/^tool boom failed \(internal error, ref [0-9a-f]{12}\)$/);
    expect(String(boomEnd?.result)).not.toContain("disk on fire");
    const nope = ends.find((e) => e.name === "nope");
    expect(nope).toMatchObject({ is_error: true });
    expect(String(nope?.result)).toContain("unknown tool nope");
    expect(result).toMatchObject({ status: "complete", text: "recovered" });
  });

  test("results are truncated to MAX_TOOL_RESULT_BYTES with a visible marker", async () => {
    const big = defineTool({
      name: "big",
      description: "returns a lot",
      args: z.object({}),
      permissionClass: "safe",
      execute: async () => ok("é".repeat(100_000)),
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "big" }] }, { text: "done" }]);
    const { events } = await runLoop(provider, [big], { limits: { MAX_TOOL_RESULT_BYTES: 1000 } });
    const end = toolUpdates(events).find((e) => e.status === "end");
    const text = String(end?.result);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000);
    expect(text).toContain("[truncated: 200000 bytes");
    expect(text).not.toContain("\uFFFD");
    const sent = provider.requests[1]?.messages.at(-1);
    expect(sent?.role === "tool" && sent.content).toBe(text);
  });

  test("the root stops with iteration_limit at MAX_ITERATIONS_PER_LEVEL", async () => {
    const provider = new ScriptedProvider(() => ({
      text: "again",
      toolCalls: [{ name: "echo", args: { value: "v" } }],
    }));
    const { result } = await runLoop(provider, [echoTool], { limits: { MAX_ITERATIONS_PER_LEVEL: 3 } });
    expect(result.status).toBe("iteration_limit");
    expect(result.error?.code).toBe("iteration_limit");
    expect(result.text).toBe("again");
    expect(provider.calls).toBe(3);
  });

  test("a provider error ends the level with status error", async () => {
    const provider = new ScriptedProvider([{ text: "par", error: { message: "upstream 500", status: 500 } }]);
    const { result, records } = await runLoop(provider, []);
    expect(result).toMatchObject({
      status: "error",
      text: "par",
      error: { code: "provider_error", message: "upstream 500" },
    });
    expect(records[0]?.error).toBe("upstream 500");
  });

  test("usage sums every call and prices known models; ledger records come per call", async () => {
    const usage = { inputTokens: 100_000, outputTokens: 10_000, cacheReadTokens: 20_000 };
    const provider = new ScriptedProvider({
      usage,
      steps: [{ toolCalls: [{ name: "echo", args: { value: "a" } }] }, { text: "b" }],
    });
    const { result, records } = await runLoop(provider, [echoTool]);
    // gpt-4o: 80k plain × $2.5 + 20k cached × $1.25 + 10k out × $10, per million.
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ provider: "scripted", model: "gpt-4o", depth: 0, costKnown: true });
    expect(records[0]?.costUsd).toBeCloseTo(0.2 + 0.025 + 0.1, 9);
    expect(result.usage).toMatchObject({
      input_tokens: 200_000,
      llm_calls: 2,
      tool_calls: 1,
      cost_known: true,
    });
    expect(result.usage.cost_usd).toBeCloseTo(0.65, 6);
  });

  test("cost is unknown for an unpriced model or a call without usage", async () => {
    const priced = new ScriptedProvider([{ text: "x", usage: { inputTokens: 1, outputTokens: 1 } }]);
    const unknown = await runLoop(priced, [], { params: { model: "my-local-llama" } });
    expect(unknown.result.usage.cost_known).toBe(false);
    const silent = new ScriptedProvider([{ text: "x" }]);
    const noUsage = await runLoop(silent, []);
    expect(noUsage.result.usage).toMatchObject({ cost_known: false, cost_usd: 0 });
  });
});

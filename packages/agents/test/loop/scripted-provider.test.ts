import { describe, expect, test } from "vitest";
import type { ProviderEvent, ProviderRequest } from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";

const request: ProviderRequest = {
  model: "m",
  systemPrompt: "s",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
};
async function collect(stream: AsyncIterable<ProviderEvent>) {
  const out: ProviderEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("ScriptedProvider", () => {
  test("plays steps in order and records every request", async () => {
    const p = new ScriptedProvider([
      { text: "a", usage: { inputTokens: 1, outputTokens: 2 } },
      { toolCalls: [{ name: "t", args: { x: 1 } }] },
    ]);
    expect(await collect(p.stream(request, new AbortController().signal))).toEqual([
      { type: "text-delta", text: "a" },
      { type: "usage", usage: { inputTokens: 1, outputTokens: 2 } },
      { type: "finish", reason: "stop" },
    ]);
    expect(await collect(p.stream(request, new AbortController().signal))).toEqual([
      { type: "tool-call", id: "call_2_1", name: "t", args: { x: 1 } },
      { type: "finish", reason: "tool_calls" },
    ]);
    expect(p.requests).toHaveLength(2);
    p.assertComplete();
  });

  test("assertComplete fails on unused steps and on unscripted calls", async () => {
    const unused = new ScriptedProvider([{ text: "a" }, { text: "b" }]);
    await collect(unused.stream(request, new AbortController().signal));
    expect(() => unused.assertComplete()).toThrow(/1 scripted step\(s\) unused/);
    const extra = new ScriptedProvider([]);
    const events = await collect(extra.stream(request, new AbortController().signal));
    expect(events[0]).toMatchObject({ type: "error" });
    expect(() => extra.assertComplete()).toThrow(/1 unexpected call/);
  });

  test("a held stream ends when aborted", async () => {
    const p = new ScriptedProvider([{ text: "a", hold: "until-aborted", toolCalls: [{ name: "never" }] }]);
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    for await (const e of p.stream(request, controller.signal)) {
      events.push(e);
      controller.abort();
    }
    expect(events).toEqual([{ type: "text-delta", text: "a" }]);
  });
});

import { describe, expect, test } from "vitest";
import {
  buildLlmCallRecord,
  createLoopContext,
  drainLoop,
  joinSideWork,
  type LoopEvent,
  runAgentLoop,
  type SideChannel,
} from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";

const sideCall = buildLlmCallRecord({
  provider: "scripted",
  model: "m",
  operation: "summarizer",
  depth: 0,
  parentId: null,
  usage: { inputTokens: 300, outputTokens: 30 },
  latencyMs: 1,
  startedAt: 0,
});
const patch: LoopEvent = { type: "scratchpad_patch", items: [] };

function loopOf(provider: ScriptedProvider) {
  return runAgentLoop({
    provider,
    from: { kind: "start", model: "m", systemPrompt: "sys", history: [{ role: "user", content: "hi" }] },
    tools: [],
    ctx: createLoopContext({}, { wallClockTimer: false }),
  });
}

describe("joinSideWork", () => {
  test("starts the side work after the answer's call; what it hands over in time joins the turn", async () => {
    let handedOver!: () => void;
    const sideDone = new Promise<void>((resolve) => {
      handedOver = resolve;
    });
    // The answer is held until the side work has handed over its call and frame.
    const provider = new ScriptedProvider([
      { text: ["a", "b"], usage: { inputTokens: 10, outputTokens: 2 }, hold: sideDone },
    ]);
    let startedAfterCalls = -1;
    const accepted: boolean[] = [];
    const events: LoopEvent[] = [];
    const joined = joinSideWork(loopOf(provider), async (side) => {
      startedAfterCalls = provider.calls;
      accepted.push(side.call(sideCall), side.event(patch));
      handedOver();
    });
    const result = await drainLoop(joined, (e) => {
      events.push(e);
    });
    expect(startedAfterCalls).toBe(1);
    expect(accepted).toEqual([true, true]);
    expect(events.filter((e) => e.type === "scratchpad_patch")).toHaveLength(1);
    expect(result.status).toBe("complete");
    expect(result.usage).toMatchObject({ llm_calls: 2, input_tokens: 310, output_tokens: 32 });
  });

  test("the loop's end does not wait for slow side work, which is then told the turn has ended", async () => {
    const provider = new ScriptedProvider([{ text: "done" }]);
    let channel: SideChannel | undefined;
    let started!: () => void;
    const sideStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let finish!: () => void;
    const joined = joinSideWork(loopOf(provider), (side) => {
      channel = side;
      started();
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    const events: LoopEvent[] = [];
    const result = await drainLoop(joined, (e) => {
      events.push(e);
    });
    // The turn is complete with only its own call, while the side work has not finished.
    expect(result.usage.llm_calls).toBe(1);
    await sideStarted;
    expect(channel?.call(sideCall)).toBe(false);
    expect(channel?.event(patch)).toBe(false);
    finish();
    expect(events.some((e) => e.type === "scratchpad_patch")).toBe(false);
  });
});

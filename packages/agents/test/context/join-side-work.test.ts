import { describe, expect, test } from "vitest";
import {
  buildLlmCallRecord,
  createLoopContext,
  drainLoop,
  joinSideWork,
  type LoopEvent,
  runUnifiedAgentLoop,
  type SideResult,
} from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";

const sideCall = buildLlmCallRecord({
  provider: "scripted",
  model: "m",
  depth: 0,
  parentId: null,
  usage: { inputTokens: 300, outputTokens: 30 },
  latencyMs: 1,
  startedAt: 0,
});
const patch: LoopEvent = { type: "scratchpad_patch", items: [] };

function loopOf(provider: ScriptedProvider) {
  return runUnifiedAgentLoop({
    provider,
    model: "m",
    systemPrompt: "sys",
    history: [{ role: "user", content: "hi" }],
    tools: [],
    ctx: createLoopContext({}, { wallClockTimer: false }),
  });
}

describe("joinSideWork", () => {
  test("starts the side work after the answer's call, sends its frames, adds its calls to the usage", async () => {
    const provider = new ScriptedProvider([
      { text: ["a", "b"], usage: { inputTokens: 10, outputTokens: 2 } },
    ]);
    let startedAfterCalls = -1;
    const events: LoopEvent[] = [];
    const joined = joinSideWork(loopOf(provider), async () => {
      startedAfterCalls = provider.calls;
      return { calls: [sideCall], events: [patch] };
    });
    const result = await drainLoop(joined, (e) => {
      events.push(e);
    });
    expect(startedAfterCalls).toBe(1);
    expect(events.filter((e) => e.type === "scratchpad_patch")).toHaveLength(1);
    expect(result.status).toBe("complete");
    expect(result.usage).toMatchObject({ llm_calls: 2, input_tokens: 310, output_tokens: 32 });
  });

  test("the loop's end waits for slow side work", async () => {
    const provider = new ScriptedProvider([{ text: "done" }]);
    let innerEnded!: () => void;
    const innerEnd = new Promise<void>((resolve) => {
      innerEnded = resolve;
    });
    async function* tracked() {
      const result = yield* loopOf(provider);
      innerEnded();
      return result;
    }
    let finish!: (r: SideResult) => void;
    const joined = joinSideWork(
      tracked(),
      () =>
        new Promise<SideResult>((resolve) => {
          finish = resolve;
        }),
    );
    const events: LoopEvent[] = [];
    let ended = false;
    const running = drainLoop(joined, (e) => {
      events.push(e);
    }).then((r) => {
      ended = true;
      return r;
    });
    await innerEnd;
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    finish({ calls: [sideCall], events: [patch] });
    const result = await running;
    expect(events.at(-1)).toEqual(patch);
    expect(result.usage.llm_calls).toBe(2);
  });
});

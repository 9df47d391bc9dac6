import { describe, expect, test } from "vitest";
import { estimateTextTokens, estimateTokens, type LoopEvent, type ModelMessage } from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { echoTool, runLoop } from "../loop/helpers.js";

const usageFrames = (events: LoopEvent[]) =>
  events.filter((e): e is Extract<LoopEvent, { type: "context_usage" }> => e.type === "context_usage");
const report = {
  budget: 2_000,
  summaryTokens: 40,
  scratchpadTokens: 12,
  messagesSummarized: 30,
  messagesDropped: 2,
};

describe("context_usage", () => {
  test("one frame before each root model call, with what that call sends", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "echo", args: { text: "ping" } }] },
      { text: "done" },
    ]);
    const { events } = await runLoop(provider, [echoTool], { params: { context: report } });
    const frames = usageFrames(events);
    expect(frames).toHaveLength(2);
    // Each frame comes before its call's agent_state/chunks, and the second counts the tool round.
    expect(events[0]?.type).toBe("context_usage");
    for (const [i, frame] of frames.entries()) {
      const request = provider.requests[i];
      const history = (request?.messages ?? []).reduce(
        (n: number, m: ModelMessage) => n + estimateTokens(m),
        0,
      );
      const fixed =
        estimateTextTokens(request?.systemPrompt ?? "") + estimateTextTokens(JSON.stringify(request?.tools));
      expect(frame).toEqual({
        type: "context_usage",
        tokens: fixed + history,
        budget: 2_000,
        summary_tokens: 40,
        scratchpad_tokens: 12,
        history_tokens: history,
        messages_summarized: 30,
        messages_verbatim: request?.messages.length,
        messages_dropped: 2,
      });
    }
    expect(frames[1]?.messages_verbatim).toBe(3);
  });

  test("no frame without a context report (subtasks, other routes)", async () => {
    const { events } = await runLoop(new ScriptedProvider([{ text: "hi" }]), []);
    expect(usageFrames(events)).toHaveLength(0);
  });

  test("the history is pruned to the context budget when it is below MAX_HISTORY_TOKENS", async () => {
    const history: ModelMessage[] = [];
    for (let i = 0; i < 40; i++)
      history.push({ role: "user", content: `${i} ${"x".repeat(400)}` }, { role: "assistant", text: "ok" });
    history.push({ role: "user", content: "now" });
    const provider = new ScriptedProvider([{ text: "done" }]);
    const { events } = await runLoop(provider, [], {
      params: { history, context: { ...report, budget: 1_000 } },
    });
    const frame = usageFrames(events)[0];
    expect(frame?.tokens).toBeLessThanOrEqual(1_000);
    const sent = provider.requests[0]?.messages.length ?? 0;
    expect(sent).toBeLessThan(history.length);
    expect(provider.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "now" });
    // What the pruning left out counts as dropped, with what the assembly had already left out.
    expect(frame?.messages_dropped).toBe(2 + history.length - sent);
  });
});

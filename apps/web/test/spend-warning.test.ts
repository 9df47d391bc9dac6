import { applyFrames } from "@agentwire-chat/client";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { emptyThread } from "../src/state/thread-view.js";
import { spendWarningLine } from "../src/ui/usage-line.js";

const usage = {
  type: "usage",
  input_tokens: 5,
  output_tokens: 7,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 4.1,
  cost_known: true,
  llm_calls: 1,
  tool_calls: 0,
  subtasks: 0,
};

const frames = (extra: object): ServerFrame[] =>
  [
    { type: "thread", thread_id: "th_1", title: "t", seq: 1 },
    { type: "turn_started", turn_id: "tu_1", user_message_id: "m_1", thread_id: "th_1", seq: 2 },
    { ...usage, ...extra, thread_id: "th_1", seq: 3 },
  ] as ServerFrame[];

describe("spend warning", () => {
  it("the turn's usage frame's spend_warning lands on the turn, and the footer says it in words", () => {
    const warning = { limit: "user_daily", limit_usd: 5, spent_usd: 4.1, resets_at: Date.UTC(2026, 10, 29) };
    const turn = applyFrames(emptyThread(), frames({ spend_warning: warning })).turns[0];
    expect(turn?.spendWarning).toEqual(warning);
    expect(turn?.usage).not.toHaveProperty("spend_warning");
    expect(spendWarningLine(turn?.spendWarning)).toBe(
      "$4.10 of your $5.00 daily spend limit used; resets at 2026-11-29 00:00 UTC",
    );
    const thread = { limit: "thread" as const, limit_usd: 1, spent_usd: 0.9, resets_at: null };
    expect(spendWarningLine(thread)).toBe("$0.90 of your $1.00 thread spend limit used");
  });

  it("no warning without spend_warning", () => {
    const turn = applyFrames(emptyThread(), frames({})).turns[0];
    expect(turn?.usage).toMatchObject({ cost_usd: 4.1 });
    expect(turn?.spendWarning).toBeUndefined();
    expect(spendWarningLine(turn?.spendWarning)).toBeUndefined();
  });
});

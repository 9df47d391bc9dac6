import { describe, expect, test } from "vitest";
import { fittingStart } from "../../src/context/pick-verbatim.js";
import {
  assembleContext,
  type ContextEntry,
  ContextSettings,
  estimateTokens,
  type ModelMessage,
  pinnedDocuments,
  verbatimStart,
} from "../../src/index.js";

const settings = (over: Record<string, number> = {}) => ContextSettings.parse(over);

/** `units` exchanges of user, tool call, result, answer; ids m0, m1... */
function thread(units: number, extra: ModelMessage[] = []): ContextEntry[] {
  const messages: ModelMessage[] = [];
  for (let k = 0; k < units; k++) {
    messages.push({ role: "user", content: `q${k}` });
    messages.push({ role: "assistant", text: "", toolCalls: [{ id: `c${k}`, name: "t", args: {} }] });
    messages.push({ role: "tool", toolCallId: `c${k}`, name: "t", content: `r${k}` });
    messages.push({ role: "assistant", text: `a${k}` });
  }
  messages.push(...extra);
  return messages.map((message, i) => ({ id: `m${i}`, message }));
}

describe("verbatimStart and pinnedDocuments", () => {
  test("the tail never starts inside a tool unit", () => {
    const messages = thread(3).map((e) => e.message);
    expect(verbatimStart(messages, 4)).toBe(8); // q2 starts the last unit
    expect(verbatimStart(messages, 2)).toBe(9); // a tool call, kept with its result
    expect(verbatimStart(messages, 3)).toBe(9); // would start on the result r2: moved back to its call
    expect(verbatimStart(messages, 100, 5)).toBe(5); // never before the floor
  });

  test("the fitting tail moves forward off a tool result, and always holds the newest unit", () => {
    const messages = thread(3).map((e) => e.message);
    const limits = (maxMessages: number) => ({ maxMessages, maxChars: 1e9, maxTokens: 1e9 });
    expect(fittingStart(messages, new Set(), 0, limits(4), 0)).toBe(8);
    expect(fittingStart(messages, new Set(), 0, limits(3), 0)).toBe(9);
    expect(fittingStart(messages, new Set(), 0, limits(2), 0)).toBe(11); // r2 at 10: forward, not back to 9
    expect(fittingStart(messages, new Set(), 0, limits(100), 0)).toBe(0);
    expect(fittingStart(messages, new Set(), 6, limits(100), 0)).toBe(7); // the floor is a result: forward
    // A pinned message counts nothing (q2 at 8); nothing fits at all: the newest unit still goes.
    expect(fittingStart(messages, new Set([8]), 0, limits(3), 0)).toBe(8);
    expect(fittingStart(messages, new Set(), 0, { maxMessages: 9, maxChars: 9, maxTokens: 1 }, 0)).toBe(11);
  });

  test("a long user message among the latest user turns is pinned, an older one is not", () => {
    const doc = "d".repeat(100);
    const messages: ModelMessage[] = [
      { role: "user", content: doc },
      { role: "assistant", text: "ok" },
      { role: "user", content: doc },
      { role: "assistant", text: "ok" },
      { role: "user", content: "short" },
      { role: "user", content: [{ type: "text", text: doc }] },
    ];
    expect([...pinnedDocuments(messages, 100, 3)].sort()).toEqual([2, 5]);
    expect([...pinnedDocuments(messages, 101, 3)]).toEqual([]);
  });
});

describe("assembleContext", () => {
  test("within budget: the whole unsummarized history, nothing to compress", () => {
    const entries = thread(2, [{ role: "user", content: "now" }]);
    const ctx = assembleContext({ entries, scratchpad: "", settings: settings(), maxHistoryTokens: 128_000 });
    expect(ctx.history).toHaveLength(9);
    expect(ctx.compress).toBeUndefined();
    expect(ctx.systemSections).toBe("");
    expect(ctx.report).toEqual({
      budget: 128_000,
      summaryTokens: 0,
      scratchpadTokens: 0,
      messagesSummarized: 0,
      messagesDropped: 0,
    });
  });

  test("over the message limit: the newest messages that fit are sent, the others dropped and to compress", () => {
    const entries = thread(5, [{ role: "user", content: "now" }]); // 21 messages
    const ctx = assembleContext({
      entries,
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_MESSAGES: 10, CONTEXT_VERBATIM_MESSAGES: 7 }),
      maxHistoryTokens: 128_000,
    });
    // As many as fit (10, from a2 at 11), not the 7 of CONTEXT_VERBATIM_MESSAGES.
    expect(ctx.history).toEqual(entries.slice(11).map((e) => e.message));
    expect(ctx.report.messagesDropped).toBe(11);
    // The job covers the dropped messages and more: it leaves min(7, half of 10) = 5 verbatim.
    expect(ctx.compress?.entries.map((e) => e.id)).toEqual(entries.slice(0, 16).map((e) => e.id));
    expect(ctx.compress).toMatchObject({
      previous: "",
      throughMessageId: "m15",
      messageCount: 16,
      pinnedIds: [],
    });
  });

  test("past three quarters of the budget: everything is still sent, and the summarizer is due beside the turn", () => {
    const entries = thread(4, [{ role: "user", content: "now" }]); // 17 messages
    const base = { entries, scratchpad: "", maxHistoryTokens: 128_000 };
    const early = assembleContext({ ...base, settings: settings({ CONTEXT_MAX_MESSAGES: 20 }) });
    expect(early.history).toHaveLength(17);
    expect(early.report.messagesDropped).toBe(0);
    // It leaves min(12, half of 20) = 10 verbatim: from a1 at 7.
    expect(early.compress?.entries.map((e) => e.id)).toEqual(entries.slice(0, 7).map((e) => e.id));
    // Within three quarters of the budget (17 of 23 messages; 17 is its floor), nothing is due yet.
    const calm = assembleContext({ ...base, settings: settings({ CONTEXT_MAX_MESSAGES: 23 }) });
    expect(calm.compress).toBeUndefined();
    expect(calm.history).toHaveLength(17);
  });

  test("the tail is as long as the token budget fits, not CONTEXT_VERBATIM_MESSAGES", () => {
    const entries = thread(5, [{ role: "user", content: "now" }]); // 21 short messages, ~6 tokens each
    const ctx = assembleContext({
      entries,
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_TOKENS: 60, CONTEXT_VERBATIM_MESSAGES: 2 }),
      maxHistoryTokens: 128_000,
    });
    let tokens = 0;
    for (const m of ctx.history) tokens += estimateTokens(m);
    expect(tokens).toBeLessThanOrEqual(60);
    expect(ctx.history.length).toBeGreaterThan(2);
    expect(ctx.history.length + ctx.report.messagesDropped).toBe(21);
    expect(ctx.compress?.entries.length).toBeGreaterThanOrEqual(ctx.report.messagesDropped);
    expect(ctx.history.at(-1)).toEqual({ role: "user", content: "now" });
    expect(ctx.history[0]?.role).not.toBe("tool");
  });

  test("with a summary: it goes to the system prompt, its coverage is skipped, the next job continues it", () => {
    const entries = thread(5, [{ role: "user", content: "now" }]);
    const summary = { summary: "SUMMARY", throughMessageId: "m7", messageCount: 8 };
    const base = { entries, summary, scratchpad: "PAD", maxHistoryTokens: 128_000 };
    const within = assembleContext({ ...base, settings: settings({ CONTEXT_MAX_MESSAGES: 20 }) });
    expect(within.history).toEqual(entries.slice(8).map((e) => e.message));
    expect(within.systemSections).toContain("its 8 oldest messages");
    expect(within.systemSections).toContain("SUMMARY");
    expect(within.systemSections.endsWith("\n\nPAD")).toBe(true);
    expect(within.report).toMatchObject({ messagesSummarized: 8, summaryTokens: 2, scratchpadTokens: 1 });
    expect(within.compress).toBeUndefined();

    const over = assembleContext({
      ...base,
      settings: settings({ CONTEXT_MAX_MESSAGES: 5, CONTEXT_VERBATIM_MESSAGES: 4 }),
    });
    // The 5 newest fit (q4 at 16 on); m8..m15 are neither sent nor summarized until the job lands.
    expect(over.history).toEqual(entries.slice(16).map((e) => e.message));
    expect(over.report.messagesDropped).toBe(8);
    // The job leaves min(4, half of 5) = 2 verbatim (a4 and "now").
    expect(over.compress?.entries.map((e) => e.id)).toEqual(entries.slice(8, 19).map((e) => e.id));
    expect(over.compress).toMatchObject({ previous: "SUMMARY", throughMessageId: "m18", messageCount: 19 });
  });

  test("over the token or character budget as well as the message count", () => {
    const long = thread(2, [{ role: "user", content: "x".repeat(4_000) }]);
    const byTokens = assembleContext({
      entries: long,
      scratchpad: "",
      settings: settings({
        CONTEXT_MAX_TOKENS: 500,
        CONTEXT_VERBATIM_MESSAGES: 1,
        CONTEXT_PIN_CHARS: 10_000,
      }),
      maxHistoryTokens: 128_000,
    });
    expect(byTokens.report.budget).toBe(500);
    expect(byTokens.compress?.entries).toHaveLength(8);
    const byChars = assembleContext({
      entries: long,
      scratchpad: "",
      settings: settings({
        CONTEXT_MAX_CHARS: 3_000,
        CONTEXT_VERBATIM_MESSAGES: 1,
        CONTEXT_PIN_CHARS: 10_000,
      }),
      maxHistoryTokens: 128_000,
    });
    expect(byChars.compress?.entries).toHaveLength(8);
    // CONTEXT_MAX_TOKENS above MAX_HISTORY_TOKENS: the hard cap wins.
    const capped = assembleContext({
      entries: long,
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_TOKENS: 9_999 }),
      maxHistoryTokens: 1_000,
    });
    expect(capped.report.budget).toBe(1_000);
  });

  test("a pasted document still in use is sent verbatim (once) and marked for the summarizer", () => {
    const doc = "D".repeat(9_000);
    const entries = thread(3, [
      { role: "user", content: doc },
      { role: "assistant", text: "read it" },
      { role: "user", content: "about the doc" },
      { role: "assistant", text: "sure" },
      { role: "user", content: "more" },
    ]);
    const ctx = assembleContext({
      entries,
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_MESSAGES: 5, CONTEXT_VERBATIM_MESSAGES: 3 }),
      maxHistoryTokens: 128_000,
    });
    // The document counts nothing: five others fit besides it (from a2 at 11).
    expect(ctx.history).toEqual(entries.slice(11).map((e) => e.message));
    expect(ctx.report.messagesDropped).toBe(11);
    expect(ctx.compress?.pinnedIds).toEqual(["m12"]);
    expect(ctx.compress?.throughMessageId).toBe("m14");
    // Once the document is in the summary's coverage it is still sent while it is among the latest 3 user turns.
    const later = assembleContext({
      entries,
      summary: { summary: "S", throughMessageId: "m13", messageCount: 14 },
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_MESSAGES: 5, CONTEXT_VERBATIM_MESSAGES: 3 }),
      maxHistoryTokens: 128_000,
    });
    expect(later.history[0]).toEqual({ role: "user", content: doc });
    expect(later.history).toHaveLength(4);
  });

  test("entries read from right after the summary give the same context as the whole thread", () => {
    const entries = thread(5, [{ role: "user", content: "now" }]);
    const summary = { summary: "S", throughMessageId: "m7", messageCount: 8 };
    const base = {
      summary,
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_MESSAGES: 20 }),
      maxHistoryTokens: 128_000,
    };
    const whole = assembleContext({ ...base, entries });
    const tail = assembleContext({ ...base, entries: entries.slice(8), afterSummary: true });
    expect(tail).toEqual(whole);
    expect(tail.report.messagesSummarized).toBe(8);
  });

  test("a summary whose last message is missing is ignored", () => {
    const entries = thread(1, [{ role: "user", content: "now" }]);
    const ctx = assembleContext({
      entries,
      summary: { summary: "S", throughMessageId: "gone", messageCount: 3 },
      scratchpad: "",
      settings: settings(),
      maxHistoryTokens: 128_000,
    });
    expect(ctx.history).toHaveLength(5);
    expect(ctx.report.messagesSummarized).toBe(0);
    expect(ctx.systemSections).toBe("");
  });
});

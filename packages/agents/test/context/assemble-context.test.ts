import { describe, expect, test } from "vitest";
import {
  assembleContext,
  type ContextEntry,
  ContextSettings,
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
    });
  });

  test("over the message limit: the verbatim tail is sent and exactly the messages before it are to compress", () => {
    const entries = thread(5, [{ role: "user", content: "now" }]); // 21 messages
    const ctx = assembleContext({
      entries,
      scratchpad: "",
      settings: settings({ CONTEXT_MAX_MESSAGES: 10, CONTEXT_VERBATIM_MESSAGES: 7 }),
      maxHistoryTokens: 128_000,
    });
    // 21 - 7 = 14 is a result (r3): the tail moves back to its call at 13.
    expect(ctx.history).toEqual(entries.slice(13).map((e) => e.message));
    expect(ctx.compress?.entries.map((e) => e.id)).toEqual(entries.slice(0, 13).map((e) => e.id));
    expect(ctx.compress).toMatchObject({
      previous: "",
      throughMessageId: "m12",
      messageCount: 13,
      pinnedIds: [],
    });
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
    expect(over.compress?.entries.map((e) => e.id)).toEqual([
      "m8",
      "m9",
      "m10",
      "m11",
      "m12",
      "m13",
      "m14",
      "m15",
      "m16",
    ]);
    expect(over.compress).toMatchObject({ previous: "SUMMARY", throughMessageId: "m16", messageCount: 17 });
    expect(over.history).toEqual(entries.slice(17).map((e) => e.message));
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
    expect(ctx.history).toEqual([entries[12], entries[14], entries[15], entries[16]].map((e) => e?.message));
    expect(ctx.compress?.pinnedIds).toEqual(["m12"]);
    expect(ctx.compress?.throughMessageId).toBe("m13");
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

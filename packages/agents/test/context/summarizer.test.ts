import { describe, expect, test } from "vitest";
import {
  type CompressionJob,
  MAX_SUMMARY_CHARS,
  parseSummarizerOutput,
  SUMMARIZER_SYSTEM_PROMPT,
  summarizeHistory,
} from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";

const job: CompressionJob = {
  previous: "OLD SUMMARY",
  entries: [
    { id: "m0", message: { role: "user", content: "create the invoice for ACME (id cust_42)" } },
    {
      id: "m1",
      message: {
        role: "assistant",
        text: "",
        toolCalls: [{ id: "c1", name: "create_invoice", args: { customer: "cust_42" } }],
      },
    },
    {
      id: "m2",
      message: { role: "tool", toolCallId: "c1", name: "create_invoice", content: "created inv_7" },
    },
    { id: "m3", message: { role: "user", content: "x".repeat(20_000) } },
  ],
  pinnedIds: ["m3"],
  throughMessageId: "m3",
  messageCount: 4,
};

describe("parseSummarizerOutput", () => {
  test("reads the JSON object inside a code fence, keeps valid ops and drops invalid ones", () => {
    const text = `Here you go:\n\`\`\`json\n${JSON.stringify({
      summary: "  the user approved inv_7  ",
      scratchpad: [
        { op: "add", kind: "task", title: "send inv_7" },
        { op: "delete", id: "s1" },
        { op: "resolve", id: "s2" },
      ],
    })}\n\`\`\``;
    expect(parseSummarizerOutput(text)).toEqual({
      ok: true,
      summary: "the user approved inv_7",
      ops: [
        { op: "add", kind: "task", title: "send inv_7" },
        { op: "resolve", id: "s2" },
      ],
      droppedOps: 1,
    });
  });

  test("refuses prose, broken JSON and an empty summary; cuts an overlong one", () => {
    expect(parseSummarizerOutput("no json here")).toMatchObject({ ok: false });
    expect(parseSummarizerOutput('{"summary": "unterminated}')).toMatchObject({ ok: false });
    expect(parseSummarizerOutput('{"summary": "   "}')).toMatchObject({ ok: false });
    expect(parseSummarizerOutput('{"scratchpad": []}')).toMatchObject({ ok: false });
    const long = parseSummarizerOutput(JSON.stringify({ summary: "s".repeat(MAX_SUMMARY_CHARS + 10) }));
    expect(long.ok && long.summary.length).toBe(MAX_SUMMARY_CHARS);
  });
});

describe("summarizeHistory", () => {
  test("one call with the summarizer prompt and a transcript of exactly the job's messages", async () => {
    const provider = new ScriptedProvider([
      { text: JSON.stringify({ summary: "NEW" }), usage: { inputTokens: 900, outputTokens: 20 } },
    ]);
    const { record, output } = await summarizeHistory({
      provider,
      model: "gpt-4o-mini",
      job,
      scratchpad: "- [s1] task: pay",
      signal: new AbortController().signal,
    });
    expect(output).toEqual({ ok: true, summary: "NEW", ops: [], droppedOps: 0 });
    expect(record).toMatchObject({
      provider: "scripted",
      model: "gpt-4o-mini",
      inputTokens: 900,
      outputTokens: 20,
      depth: 0,
    });
    expect(record.error).toBeUndefined();
    const request = provider.requests[0];
    expect(request?.systemPrompt).toBe(SUMMARIZER_SYSTEM_PROMPT);
    expect(request?.tools).toEqual([]);
    expect(request?.messages).toHaveLength(1);
    const text = String(request?.messages[0]?.role === "user" && request.messages[0].content);
    expect(text).toContain("<current_summary>\nOLD SUMMARY\n</current_summary>");
    expect(text).toContain("- [s1] task: pay");
    expect(text).toContain('<messages count="4">');
    expect(text).toContain("[user] create the invoice for ACME (id cust_42)");
    expect(text).toContain('[assistant calls create_invoice {"customer":"cust_42"}] (id c1)');
    expect(text).toContain("[result of create_invoice (id c1)] created inv_7");
    expect(text).toContain("[user, pasted document kept verbatim] xxx");
    expect(text).toContain("characters cut");
    expect(text.length).toBeLessThan(10_000);
  });

  test("a provider failure is an outcome with its ledger record, not a throw", async () => {
    const provider = new ScriptedProvider([
      { error: "rate limited", usage: { inputTokens: 5, outputTokens: 0 } },
    ]);
    const { record, output } = await summarizeHistory({
      provider,
      model: "m",
      job,
      scratchpad: "",
      signal: new AbortController().signal,
    });
    expect(output).toEqual({ ok: false, message: "rate limited" });
    expect(record.error).toBe("summarizer: rate limited");
  });
});

import { describe, expect, test } from "vitest";
import { estimateTokens, type ModelMessage, pruneHistory, truncateResult } from "../../src/index.js";

const user = (content: string): ModelMessage => ({ role: "user", content });
const call = (id: string, pad = ""): ModelMessage => ({
  role: "assistant",
  text: pad,
  toolCalls: [{ id, name: "echo", args: {} }],
});
const result = (id: string, content: string): ModelMessage => ({
  role: "tool",
  toolCallId: id,
  name: "echo",
  content,
});

describe("pruneHistory", () => {
  const big = "x".repeat(4000); // ~1000 tokens
  const history: ModelMessage[] = [
    user(`old question ${big}`),
    call("c1", big),
    result("c1", big),
    result("c1b", big),
    { role: "assistant", text: `old answer ${big}` },
    user("latest question"),
    call("c2"),
    result("c2", "small"),
  ];

  test("keeps everything when it fits", () => {
    expect(pruneHistory(history, 1_000_000)).toEqual(history);
  });

  test("drops oldest first, never splitting a call from its results, never the latest user message", () => {
    const pruned = pruneHistory(history, 2500);
    expect(pruned.at(-3)).toEqual(user("latest question"));
    for (const [i, m] of pruned.entries()) {
      if (m.role === "tool") {
        const owner = pruned.slice(0, i).findLast((p) => p.role !== "tool");
        expect(owner?.role).toBe("assistant");
      }
    }
    expect(pruned.some((m) => m.role === "user" && String(m.content).startsWith("old question"))).toBe(false);
    const total = pruned.reduce((n, m) => n + estimateTokens(m), 0);
    expect(total).toBeLessThanOrEqual(2500);
  });

  test("with a tiny budget only the latest user message and the newest step are left", () => {
    const pruned = pruneHistory(history, 10);
    expect(pruned).toEqual([user("latest question"), call("c2"), result("c2", "small")]);
  });
});

describe("truncateResult", () => {
  test("leaves short results alone", () => {
    expect(truncateResult("short", 100)).toEqual({ text: "short", bytes: 5, truncated: false });
  });

  test("cuts to the byte limit at a character boundary with a marker", () => {
    const cut = truncateResult("€".repeat(1000), 200);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes).toBeLessThanOrEqual(200);
    expect(Buffer.byteLength(cut.text)).toBe(cut.bytes);
    expect(cut.text).toMatch(/^€+\n…\[truncated: 3000 bytes, showing the first \d+\]$/);
  });
});

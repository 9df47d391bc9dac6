import { endStatus, questionFrom } from "@agentwire-chat/client";
import { describe, expect, it } from "vitest";
import { plural } from "../src/ui/format.js";
import { relativeTime } from "../src/ui/relative-time.js";
import { budgetDetail } from "../src/ui/turn-footer.js";
import { usageLine } from "../src/ui/usage-line.js";
import { usage } from "./fixtures.js";

const none = { tools: 0, subtasks: 0, refused: 0 };
const zero = { ...usage, input_tokens: 0, output_tokens: 0, cost_usd: 0, cost_known: false };

describe("the usage line", () => {
  it("shows tokens, calls and cost in the right number", () => {
    expect(usageLine(usage, { tools: 1, subtasks: 0, refused: 0 })).toBe(
      "812 in · 31 out · 2 model calls · 1 tool call · $0.0023",
    );
    expect(usageLine({ ...usage, cache_read_tokens: 1200, llm_calls: 1 }, { ...none, tools: 3 })).toBe(
      "812 in · 31 out · 1,200 cached · 1 model call · 3 tool calls · $0.0023",
    );
  });

  it("says token counts nobody reported are not reported: a stopped stream is not 0 in · 0 out", () => {
    const line = usageLine({ ...zero, llm_calls: 1, tool_calls: 0 }, none);
    expect(line).toBe("tokens not reported · 1 model call");
    expect(line).not.toContain("0 in");
    expect(usageLine({ ...zero, llm_calls: 0, tool_calls: 0, subtasks: 0 }, none)).toBeUndefined();
    expect(usageLine(undefined, none)).toBeUndefined();
  });

  it("counts subtasks from the cards shown, refused ones included in the total", () => {
    const spent = { ...zero, llm_calls: 2, tool_calls: 2, subtasks: 1 };
    expect(usageLine(spent, { tools: 0, subtasks: 1, refused: 1 })).toBe(
      "tokens not reported · 2 model calls · 2 subtasks (1 refused)",
    );
    expect(usageLine(spent, { tools: 2, subtasks: 1, refused: 3 })).toBe(
      "tokens not reported · 2 model calls · 2 tool calls · 4 subtasks (3 refused)",
    );
    // No cards known (e.g. a damaged replay): the server's counts, run_subtask calls not counted twice.
    expect(usageLine({ ...spent, tool_calls: 3 }, none)).toBe(
      "tokens not reported · 2 model calls · 2 tool calls · 1 subtask",
    );
  });

  it("says what the budget limit was", () => {
    expect(budgetDetail({ reason: "subtasks", limit: 1, observed: 2 })).toBe(" (limit 1)");
    expect(budgetDetail({ reason: "tokens", limit: 1000, observed: 1500 })).toBe(
      " (limit 1,000, used 1,500)",
    );
    expect(budgetDetail({ reason: "wall_clock", limit: 180_000, observed: 180_004 })).toBe(
      " (limit 180.0 s)",
    );
    expect(budgetDetail({ reason: "unknown" })).toBe("");
  });

  it("pluralises", () => {
    expect(plural(1, "subtask")).toBe("1 subtask");
    expect(plural(0, "subtask")).toBe("0 subtasks");
    expect(plural(1234, "model call")).toBe("1,234 model calls");
  });
});

describe("how a call ended", () => {
  const budget = "stopped: the turn's budget is exhausted";
  it("tells refused and stopped subtasks from failed work", () => {
    expect(endStatus("run_subtask", budget, true)).toBe("refused");
    expect(endStatus("run_subtask", "cancelled", true)).toBe("refused");
    expect(
      endStatus(
        "run_subtask",
        "run_subtask is not available: the maximum subtask depth (3) is reached",
        true,
      ),
    ).toBe("refused");
    expect(endStatus("run_subtask", `subtask "Say \\"hi\\"" stopped: ${budget.slice(9)}`, true)).toBe(
      "stopped",
    );
    expect(endStatus("run_subtask", 'subtask "A" cancelled', true)).toBe("stopped");
    expect(endStatus("run_subtask", 'subtask "A" failed: provider down', true)).toBe("error");
    expect(endStatus("web_fetch", budget, true)).toBe("stopped");
    expect(endStatus("web_fetch", "HTTP 500", true)).toBe("error");
    expect(endStatus("web_fetch", { code: 1 }, true)).toBe("error");
    expect(endStatus("web_fetch", budget, false)).toBe("complete");
    expect(endStatus("web_fetch", budget, undefined)).toBe("complete");
  });

  it("reads ask_user's question from args or a stored preview", () => {
    expect(questionFrom({ question: "Which?" })).toBe("Which?");
    expect(questionFrom('{"question":"Which?"}')).toBe("Which?");
    expect(questionFrom('{"question":"cut off…')).toBe('{"question":"cut off…');
    expect(questionFrom({ q: 1 })).toBeUndefined();
    expect(questionFrom(undefined)).toBeUndefined();
  });
});

describe("relative times in the thread list", () => {
  const now = new Date(2026, 10, 24, 15, 30);
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  it("is short and tells threads apart", () => {
    expect(relativeTime(ago(10_000), now)).toBe("just now");
    expect(relativeTime(ago(-5_000), now)).toBe("just now");
    expect(relativeTime(ago(5 * 60_000), now)).toBe("5 min ago");
    expect(relativeTime(ago(3 * 3_600_000), now)).toBe("3 h ago");
    expect(relativeTime(new Date(2026, 10, 23, 23, 50).toISOString(), now)).toBe("yesterday");
    expect(relativeTime(new Date(2026, 10, 20, 9, 0).toISOString(), now)).toBe("Fri");
    expect(relativeTime(new Date(2026, 9, 2, 9, 0).toISOString(), now)).toBe("Oct 2");
    expect(relativeTime(new Date(2025, 9, 2, 9, 0).toISOString(), now)).toBe("Oct 2, 2025");
    expect(relativeTime("not a date", now)).toBe("");
  });
});

import { applyFrames, mergeScratchpad } from "@agentwire-chat/client";
import type { ScratchpadItem, ServerFrame, TurnCost } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { groupScratchpad } from "../src/state/scratchpad.js";
import { sumThreadCost } from "../src/state/thread-cost.js";
import { emptyThread } from "../src/state/thread-view.js";
import { contextDetail, contextLine, shortTokens } from "../src/ui/context-line.js";
import { threadCostLine } from "../src/ui/thread-cost-line.js";
import { row, stamp } from "./fixtures.js";

function item(id: string, partial: Partial<ScratchpadItem> = {}): ScratchpadItem {
  return {
    id,
    kind: "task",
    title: `Item ${id}`,
    status: "active",
    created_at: "2026-11-21T10:00:00.000Z",
    updated_at: "2026-11-21T10:00:00.000Z",
    ...partial,
  };
}

describe("scratchpad state", () => {
  it("replaces items by id from patches and keeps new ones in arrival order", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u1", role: "user", content: "Go" }) },
      { type: "scratchpad_patch", items: [item("s1"), item("s2", { kind: "note" })] },
      {
        type: "scratchpad_patch",
        items: [item("s1", { status: "resolved", updated_at: "2026-11-21T10:01:00.000Z" }), item("s3")],
      },
    ]);
    const view = applyFrames(emptyThread(), frames);
    expect(view.scratchpad?.map((i) => [i.id, i.status])).toEqual([
      ["s1", "resolved"],
      ["s2", "active"],
      ["s3", "active"],
    ]);
    const { active, closed } = groupScratchpad(view.scratchpad ?? []);
    expect(active.map((i) => i.id)).toEqual(["s2", "s3"]);
    expect(closed.map((i) => i.id)).toEqual(["s1"]);
  });

  it("keeps the newer copy when the HTTP list arrives after a live patch", () => {
    const live = [item("s1", { status: "discarded", updated_at: "2026-11-21T10:05:00.000Z" })];
    const fetched = [item("s1"), item("s0", { kind: "idea" })];
    const merged = mergeScratchpad(live, fetched);
    expect(merged.map((i) => [i.id, i.status])).toEqual([
      ["s1", "discarded"],
      ["s0", "active"],
    ]);
  });

  it("applies patches that arrive while a settled turn is replayed", () => {
    const view = applyFrames({ ...emptyThread("th_1"), skipping: "u1" }, [
      { type: "scratchpad_patch", items: [item("s1")], thread_id: "th_1", seq: 4 } as ServerFrame,
    ]);
    expect(view.scratchpad?.map((i) => i.id)).toEqual(["s1"]);
  });

  it("drops every item on a cleared patch, and numbers from s1 again after it", () => {
    const frames = stamp("th_1", 1, [
      { type: "message", message: row({ id: "u1", role: "user", content: "Go" }) },
      { type: "scratchpad_patch", items: [item("s1"), item("s2")] },
      { type: "scratchpad_patch", items: [], cleared: true },
    ]);
    const cleared = applyFrames(emptyThread(), frames);
    expect(cleared.scratchpad).toEqual([]);
    const again = applyFrames(
      cleared,
      stamp("th_1", 4, [{ type: "scratchpad_patch", items: [item("s1", { title: "New" })] }]),
    );
    expect(again.scratchpad?.map((i) => [i.id, i.title])).toEqual([["s1", "New"]]);
  });
});

describe("thread cost", () => {
  const turn = (input: number, output: number, cost: number, known: boolean, calls: number): TurnCost => ({
    turn_id: `t${input}`,
    input_tokens: input,
    output_tokens: output,
    cost_usd: cost,
    cost_known: known,
    llm_calls: calls,
    nodes: [],
    by_operation: [],
  });

  it("sums the turns, and says nothing before the first model call", () => {
    const cost = sumThreadCost([turn(1000, 20, 0.5, true, 2), turn(2500, 30, 0.25, true, 1)]);
    expect(threadCostLine(cost)).toBe("Thread: $0.75 · 3,500 in · 50 out · 3 model calls");
    expect(threadCostLine(sumThreadCost([]))).toBeUndefined();
  });

  it("calls the cost unknown when any turn's is, rather than showing a partial sum", () => {
    const cost = sumThreadCost([turn(10, 1, 0.5, true, 1), turn(10, 1, 0, false, 1)]);
    expect(threadCostLine(cost)).toBe("Thread: cost unknown · 20 in · 2 out · 2 model calls");
  });

  it("says tokens were not reported for model calls no provider reported (a stop, a provider error)", () => {
    expect(threadCostLine(sumThreadCost([turn(0, 0, 0, true, 1)]))).toBe(
      "Thread: tokens not reported · 1 model call",
    );
    expect(threadCostLine(sumThreadCost([turn(0, 0, 0, true, 1), turn(10, 1, 0.5, true, 1)]))).toBe(
      "Thread: $0.50 · 10 in · 1 out · 2 model calls",
    );
  });
});

describe("context usage", () => {
  const frame: ServerFrame = {
    type: "context_usage",
    tokens: 12_345,
    budget: 100_000,
    summary_tokens: 900,
    scratchpad_tokens: 120,
    history_tokens: 8000,
    messages_summarized: 180,
    messages_verbatim: 12,
  };

  it("keeps the latest frame on the thread and words it for the header", () => {
    const view = applyFrames(emptyThread(), stamp("th_1", 1, [frame, { ...frame, tokens: 20_000 }]));
    expect(view.context?.tokens).toBe(20_000);
    // A thread-level frame: it starts no turn.
    expect(view.turns).toEqual([]);
    expect(contextLine(view.context!)).toBe("context 20k / 100k tokens · 180 messages summarized");
    expect(contextDetail(view.context!)).toBe(
      "summary 900 · scratchpad 120 · recent messages 8k (12 messages)",
    );
  });

  it("leaves out the summary count while nothing is summarized", () => {
    const view = applyFrames(
      emptyThread(),
      stamp("th_1", 1, [{ ...frame, tokens: 850, messages_summarized: 0 }]),
    );
    expect(contextLine(view.context!)).toBe("context 850 / 100k tokens");
  });

  it("says how many older messages the call left out, and reads an older server's frame as none", () => {
    const view = applyFrames(emptyThread(), stamp("th_1", 1, [{ ...frame, messages_dropped: 3 }]));
    expect(view.context?.messagesDropped).toBe(3);
    expect(contextLine(view.context!)).toBe(
      "context 12k / 100k tokens · 180 messages summarized · 3 older messages left out",
    );
    const older = applyFrames(emptyThread(), stamp("th_1", 1, [frame]));
    expect(older.context?.messagesDropped).toBe(0);
    expect(contextLine(older.context!)).toBe("context 12k / 100k tokens · 180 messages summarized");
  });

  it("shortens token counts", () => {
    expect([999, 1000, 1540, 12_345, 128_000].map(shortTokens)).toEqual(["999", "1k", "1.5k", "12k", "128k"]);
  });
});

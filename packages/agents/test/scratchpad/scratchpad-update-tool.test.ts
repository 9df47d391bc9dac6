import type { ScratchpadItem } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { applyScratchpadOps, MAX_SCRATCHPAD_ITEMS } from "../../src/scratchpad/apply-scratchpad-ops.js";
import { InMemoryScratchpadStore, type ScratchpadStore } from "../../src/scratchpad/scratchpad-store.js";
import { createScratchpadUpdateTool } from "../../src/scratchpad/scratchpad-update-tool.js";
import type { Tool, ToolOutcome } from "../../src/tools/tool.js";
import type { LoopEvent } from "../../src/turn/loop-event.js";
import { errorText, okOutput } from "../tools/run-tool.js";

/** Runs the tool as the loop does, collecting what it emits. */
async function run(tool: Tool, args: unknown): Promise<{ outcome: ToolOutcome; emitted: LoopEvent[] }> {
  const emitted: LoopEvent[] = [];
  const checked = tool.validate(args);
  if (!checked.ok) return { outcome: { type: "result", output: checked.message, isError: true }, emitted };
  const outcome = await tool.execute(checked.value, {
    toolCallId: "call_1",
    depth: 0,
    parentId: null,
    signal: new AbortController().signal,
    emit: (event) => emitted.push(event),
  });
  return { outcome, emitted };
}

describe("scratchpad_update", () => {
  it("is a safe, sequential tool", () => {
    const tool = createScratchpadUpdateTool(new InMemoryScratchpadStore());
    expect(tool.name).toBe("scratchpad_update");
    expect(tool.permissionClass).toBe("safe");
    expect(tool.parallelSafe).toBe(false);
    expect(tool.description).toMatch(/resolve/);
  });

  it("adds items with ids s1, s2…, emits a patch with them whole and returns the ids", async () => {
    const store = new InMemoryScratchpadStore();
    const tool = createScratchpadUpdateTool(store);
    const { outcome, emitted } = await run(tool, {
      ops: [
        { op: "add", kind: "task", title: "Collect the logs" },
        { op: "add", kind: "question", title: "Which region?", details: "eu or us", related_ids: ["s1"] },
      ],
    });
    const out = okOutput<{ changed: { id: string; status: string }[] }>(outcome);
    expect(out.changed.map((c) => c.id)).toEqual(["s1", "s2"]);
    expect(emitted).toHaveLength(1);
    const patch = emitted[0] as { type: string; items: ScratchpadItem[] };
    expect(patch.type).toBe("scratchpad_patch");
    expect(patch.items).toEqual(store.list());
    expect(patch.items[1]).toMatchObject({
      id: "s2",
      kind: "question",
      title: "Which region?",
      details: "eu or us",
      status: "active",
      related_ids: ["s1"],
    });
  });

  it("updates, resolves and discards without deleting, and patches only the changed items", async () => {
    const store = new InMemoryScratchpadStore();
    const tool = createScratchpadUpdateTool(store);
    await run(tool, {
      ops: [
        { op: "add", kind: "task", title: "a" },
        { op: "add", kind: "idea", title: "b" },
        { op: "add", kind: "note", title: "c" },
      ],
    });
    const { outcome, emitted } = await run(tool, {
      ops: [
        { op: "update", id: "s3", title: "c2", details: "more" },
        { op: "resolve", id: "s1" },
        { op: "discard", id: "s2" },
      ],
    });
    expect(okOutput<{ changed: { id: string }[] }>(outcome).changed.map((c) => c.id)).toEqual([
      "s1",
      "s2",
      "s3",
    ]);
    const items = (emitted[0] as { items: ScratchpadItem[] }).items;
    expect(items.map((i) => [i.id, i.status, i.title])).toEqual([
      ["s1", "resolved", "a"],
      ["s2", "discarded", "b"],
      ["s3", "active", "c2"],
    ]);
    expect(store.list()).toHaveLength(3);
  });

  it("refuses a batch naming an unknown id as an error result, applying nothing and emitting nothing", async () => {
    const store = new InMemoryScratchpadStore();
    const tool = createScratchpadUpdateTool(store);
    await run(tool, { ops: [{ op: "add", kind: "task", title: "a" }] });
    const { outcome, emitted } = await run(tool, {
      ops: [
        { op: "resolve", id: "s1" },
        { op: "add", kind: "note", title: "n" },
        { op: "discard", id: "s9" },
      ],
    });
    expect(errorText(outcome)).toMatch(
      /op 3 \(discard\): no scratchpad item "s9".*ids: s1, s2.*nothing was applied/,
    );
    expect(emitted).toEqual([]);
    expect(store.list().map((i) => [i.id, i.status])).toEqual([["s1", "active"]]);
  });

  it("rejects bad ops and op counts with a message naming the problem", async () => {
    const tool = createScratchpadUpdateTool(new InMemoryScratchpadStore());
    expect(errorText((await run(tool, { ops: [] })).outcome)).toMatch(
      /invalid arguments for scratchpad_update: ops/,
    );
    expect(errorText((await run(tool, { ops: [{ op: "delete", id: "s1" }] })).outcome)).toMatch(/ops\.0/);
    expect(errorText((await run(tool, { ops: [{ op: "add", kind: "wish", title: "x" }] })).outcome)).toMatch(
      /ops\.0\.kind/,
    );
    expect(errorText((await run(tool, { ops: [{ op: "add", kind: "task", title: "" }] })).outcome)).toMatch(
      /ops\.0\.title/,
    );
    const tooMany = Array.from({ length: 21 }, () => ({ op: "add", kind: "note", title: "x" }));
    expect(errorText((await run(tool, { ops: tooMany })).outcome)).toMatch(/ops/);
  });

  it("hides a failing store's internals", async () => {
    const broken: ScratchpadStore = {
      apply: async () => Promise.reject(new Error("SQLITE_IOERR at /var/db")),
    };
    const { outcome, emitted } = await run(createScratchpadUpdateTool(broken), {
      ops: [{ op: "add", kind: "task", title: "a" }],
    });
    expect(errorText(outcome)).toBe("the scratchpad is unavailable; try again later");
    expect(emitted).toEqual([]);
  });
});

describe("applyScratchpadOps", () => {
  it("continues ids after the highest existing one and stamps times", () => {
    const at = Date.UTC(2026, 0, 2);
    const first = applyScratchpadOps([], [{ op: "add", kind: "note", title: "x" }], at);
    if (!first.ok) throw new Error(first.message);
    const existing = [first.added[0] as ScratchpadItem, { ...(first.added[0] as ScratchpadItem), id: "s7" }];
    const next = applyScratchpadOps(existing, [{ op: "add", kind: "note", title: "y" }], at + 1000);
    if (!next.ok) throw new Error(next.message);
    expect(next.added[0]).toMatchObject({ id: "s8", created_at: "2026-01-02T00:00:01.000Z" });
    expect(first.added[0]?.created_at).toBe("2026-01-02T00:00:00.000Z");
  });

  it("lets later ops of a batch change an item added earlier in it, reported once as added", () => {
    const result = applyScratchpadOps(
      [],
      [
        { op: "add", kind: "task", title: "t" },
        { op: "resolve", id: "s1" },
      ],
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.added.map((i) => [i.id, i.status])).toEqual([["s1", "resolved"]]);
    expect(result.updated).toEqual([]);
  });

  it("refuses adds beyond the cap", () => {
    const full = Array.from({ length: MAX_SCRATCHPAD_ITEMS }, (_, i) => ({
      id: `s${i + 1}`,
      kind: "note" as const,
      title: "x",
      status: "resolved" as const,
      created_at: "",
      updated_at: "",
    }));
    const result = applyScratchpadOps(full, [{ op: "add", kind: "note", title: "y" }]);
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/full/) });
  });
});

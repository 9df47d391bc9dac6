import { readdirSync, readFileSync } from "node:fs";
import { ExecutionTreeSnapshot } from "@agentwire-chat/protocol";
import { describe, expect, test } from "vitest";
import { ExecutionTreeBuilder, type LoopEvent } from "../../src/index.js";

type Fixture = { events: LoopEvent[]; snapshot: unknown; now_ms?: number };
const dir = new URL("../fixtures/execution-tree/", import.meta.url);
const fixtures = readdirSync(dir).filter((f) => f.endsWith(".json"));

describe("ExecutionTreeBuilder", () => {
  test("the fixture corpus is not empty", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(3);
  });

  test.each(fixtures)("%s: stored v1 snapshots still parse and are rebuilt from their events", (file) => {
    const fixture = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as Fixture;
    const stored = ExecutionTreeSnapshot.parse(fixture.snapshot);
    const later = new ExecutionTreeBuilder({ from: stored, now: () => 0 });
    expect(later.snapshot()).toEqual(stored);
    const clock = fixture.now_ms ?? 0;
    // Starts are seen at 0, the snapshot is taken at now_ms.
    let t = 0;
    const stepped = new ExecutionTreeBuilder({ now: () => t });
    for (const event of fixture.events) stepped.add(event);
    t = clock;
    expect(stepped.snapshot()).toEqual(stored);
  });

  test("previews are at most 500 characters", () => {
    const builder = new ExecutionTreeBuilder();
    builder.add({
      type: "tool_call_update",
      tool_call_id: "a",
      name: "x",
      status: "start",
      args: { v: "z".repeat(2000) },
      parent_id: null,
      depth: 0,
    });
    const [node] = builder.snapshot().nodes;
    expect(node?.args_preview?.length).toBe(500);
  });

  describe("an interrupted turn", () => {
    const start = (id: string, parent: string | null, depth: number): LoopEvent => ({
      type: "tool_call_update",
      tool_call_id: id,
      name: "run_subtask",
      status: "start",
      title: id,
      parent_id: parent,
      depth,
    });
    const chunk = (parent: string, content: string, extra: Partial<LoopEvent> = {}): LoopEvent =>
      ({ type: "chunk", content, parent_id: parent, depth: 1, ...extra }) as LoopEvent;
    const end = (
      id: string,
      isError: boolean,
      parent: string | null = null,
      depth = 0,
      result = isError ? "cancelled" : "done",
    ): LoopEvent => ({
      type: "tool_call_update",
      tool_call_id: id,
      name: "run_subtask",
      status: "end",
      result,
      is_error: isError,
      parent_id: parent,
      depth,
    });

    test("after a crash: open calls are interrupted, timed to the cut, with every character of their text", () => {
      const builder = new ExecutionTreeBuilder({ now: () => 99_999 });
      builder.add(start("a", null, 0), 1000);
      builder.add(start("b", null, 0), 1001);
      builder.add(chunk("a", "Part A "), 1100);
      builder.add(chunk("b", "hidden", { thinking: true }), 1150);
      builder.add(chunk("b", "Part B"), 1200);
      builder.add(chunk("a", "goes on"), 1400);
      builder.interrupt(1400);
      const nodes = builder.snapshot().nodes;
      expect(nodes).toEqual([
        expect.objectContaining({
          id: "a",
          status: "interrupted",
          is_error: true,
          duration_ms: 400,
          text: "Part A goes on",
        }),
        expect.objectContaining({
          id: "b",
          status: "interrupted",
          is_error: true,
          duration_ms: 399,
          text: "Part B",
        }),
      ]);
      expect(nodes[0]).not.toHaveProperty("result_preview");
      expect(ExecutionTreeSnapshot.parse({ version: 1, nodes })).toBeTruthy();
    });

    test("on a shutdown: calls cancelled after the abort are interrupted, one that finished keeps its result", () => {
      let t = 0;
      const builder = new ExecutionTreeBuilder({ now: () => t });
      builder.add(start("a", null, 0));
      builder.add(start("b", null, 0));
      builder.add(chunk("a", "text of a"));
      builder.add(chunk("b", "text of b"));
      t = 50;
      builder.add(end("b", false));
      builder.interrupt();
      builder.add(end("a", true));
      const [a, b] = builder.snapshot().nodes;
      expect(a).toMatchObject({ status: "interrupted", is_error: true, text: "text of a", duration_ms: 50 });
      expect(b).toMatchObject({ result_preview: "done" });
      expect(b).not.toHaveProperty("status");
      expect(b).not.toHaveProperty("text");
    });

    test("a turn never interrupted stores no status, and a call that failed by itself is no interruption", () => {
      const builder = new ExecutionTreeBuilder({ now: () => 0 });
      builder.add(start("a", null, 0));
      builder.add(chunk("a", "x"));
      builder.add(end("a", true, null, 0, 'subtask "A" failed: boom'));
      const [a] = builder.snapshot().nodes;
      expect(a).toMatchObject({ is_error: true, result_preview: 'subtask "A" failed: boom' });
      expect(a).not.toHaveProperty("status");
      expect(a).not.toHaveProperty("text");
    });

    test("a call Stop or the budget cut short keeps the text it streamed, with no status", () => {
      const builder = new ExecutionTreeBuilder({ now: () => 0 });
      const results = [
        "cancelled",
        'subtask "B" cancelled',
        'subtask "C" stopped: the turn\'s budget is exhausted',
      ];
      for (const [i, id] of ["a", "b", "c"].entries()) {
        builder.add(start(id, null, 0));
        builder.add(chunk(id, `${id} so far`));
        builder.add(end(id, true, null, 0, results[i]));
      }
      builder.add(start("d", null, 0));
      builder.add(chunk("d", "d done"));
      builder.add(end("d", false));
      const byId = new Map(builder.snapshot().nodes.map((n) => [n.id, n]));
      for (const id of ["a", "b", "c"]) {
        expect(byId.get(id)).toMatchObject({ is_error: true, text: `${id} so far` });
        expect(byId.get(id)).not.toHaveProperty("status");
      }
      // One that ended by itself: its result stands for its text.
      expect(byId.get("d")).not.toHaveProperty("text");
    });

    test("continued after a crash: calls left open inside a call that then ends are interrupted, with their text", () => {
      let t = 0;
      const builder = new ExecutionTreeBuilder({ now: () => t });
      // A plan call whose first step finished and whose second was cut by the crash...
      builder.add(start("p", null, 0));
      builder.add(start("p/one", "p", 1));
      builder.add(end("p/one", false, "p", 1));
      builder.add(start("p/two", "p", 1));
      builder.add(start("p/two/c", "p/two", 2));
      builder.add(chunk("p/two", "two half"));
      t = 30;
      // ...ends after the restart with the restart's error; its open steps cannot end any more.
      builder.add(end("p", true));
      const byId = new Map(builder.snapshot().nodes.map((n) => [n.id, n]));
      expect(byId.get("p")).toMatchObject({ is_error: true, result_preview: "cancelled" });
      expect(byId.get("p")).not.toHaveProperty("status");
      expect(byId.get("p/one")).toMatchObject({ result_preview: "done" });
      expect(byId.get("p/one")).not.toHaveProperty("status");
      expect(byId.get("p/two")).toMatchObject({
        status: "interrupted",
        is_error: true,
        text: "two half",
        duration_ms: 30,
      });
      expect(byId.get("p/two/c")).toMatchObject({ status: "interrupted", is_error: true });
      // An end that still comes for one of them is its own.
      builder.add(end("p/two", false, "p", 1));
      expect(builder.snapshot().nodes.find((n) => n.id === "p/two")).not.toHaveProperty("status");
    });

    test("a suspended tree carries an open call's text into the resumed turn", () => {
      const first = new ExecutionTreeBuilder({ now: () => 0 });
      first.add(start("a", null, 0));
      first.add(chunk("a", "before "));
      const later = new ExecutionTreeBuilder({ from: first.snapshot(), now: () => 10 });
      later.add(chunk("a", "after"));
      later.interrupt();
      expect(later.snapshot().nodes[0]).toMatchObject({ status: "interrupted", text: "before after" });
    });
  });
});

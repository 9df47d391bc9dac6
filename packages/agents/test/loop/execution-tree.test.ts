import { readdirSync, readFileSync } from "node:fs";
import { ExecutionTreeSnapshot } from "@agentwire/protocol";
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
});

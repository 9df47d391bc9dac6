import { describe, expect, test } from "vitest";
import { z } from "zod";
import { defineTool, ok, runSubtaskTool, type Tool } from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { runLoop } from "./helpers.js";

/** A tool that records how many of its kind run at once; it yields to the event loop while it runs. */
function instrumented(name: string, opts: { lock?: string; parallelSafe?: boolean } = {}) {
  const stats = { running: 0, max: 0, order: [] as string[] };
  const tool: Tool = defineTool({
    name,
    description: "instrumented",
    args: z.object({ tag: z.string() }),
    permissionClass: "safe",
    ...(opts.parallelSafe !== undefined && { parallelSafe: opts.parallelSafe }),
    ...(opts.lock !== undefined && { requiresExclusiveLock: opts.lock }),
    execute: async ({ tag }) => {
      stats.running += 1;
      stats.max = Math.max(stats.max, stats.running);
      stats.order.push(tag);
      // Let every other ready task run: a second holder would show up in `running` now.
      await new Promise<void>((resolve) => setImmediate(resolve));
      stats.running -= 1;
      return ok(tag);
    },
  });
  return { tool, stats };
}

const calls = (name: string, tags: string[]) => tags.map((tag) => ({ name, args: { tag } }));

function treeScript(name: string): (r: { messages: { role: string; content?: unknown }[] }) => ScriptedStep {
  return (r) => {
    const first = r.messages[0];
    const task = first?.role === "user" ? String(first.content) : "";
    if (r.messages.length > 1) return { text: `done ${task}` };
    if (task === "hello") {
      return {
        toolCalls: [
          ...calls(name, ["r1", "r2"]),
          { name: "run_subtask", args: { title: "A", instructions: "A" } },
          { name: "run_subtask", args: { title: "B", instructions: "B" } },
        ],
      };
    }
    return { toolCalls: calls(name, [`${task}1`, `${task}2`]) };
  };
}

describe("tool scheduling", () => {
  test("a named lock is never held twice at once across the whole tree", async () => {
    const { tool, stats } = instrumented("write", { lock: "workspace" });
    const provider = new ScriptedProvider(treeScript("write"));
    const { result } = await runLoop(provider, [tool, runSubtaskTool]);
    expect(result.status).toBe("complete");
    expect(stats.order.sort()).toEqual(["A1", "A2", "B1", "B2", "r1", "r2"]);
    expect(stats.max).toBe(1);
  });

  test("the same tree without the lock does run calls concurrently (the instrument can see it)", async () => {
    const { tool, stats } = instrumented("read");
    const provider = new ScriptedProvider(treeScript("read"));
    await runLoop(provider, [tool, runSubtaskTool]);
    expect(stats.max).toBeGreaterThan(1);
  });

  test("parallel-safe calls run at most MAX_PARALLEL_PER_TURN at once", async () => {
    const { tool, stats } = instrumented("read");
    const tags = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const provider = new ScriptedProvider([{ toolCalls: calls("read", tags) }, { text: "ok" }]);
    await runLoop(provider, [tool], { limits: { MAX_PARALLEL_PER_TURN: 3 } });
    expect(stats.max).toBe(3);
    expect(stats.order).toHaveLength(10);
  });

  test("calls that are not parallel-safe run one at a time in the model's order", async () => {
    const { tool, stats } = instrumented("mutate", { parallelSafe: false });
    const provider = new ScriptedProvider([{ toolCalls: calls("mutate", ["c", "a", "b"]) }, { text: "ok" }]);
    await runLoop(provider, [tool]);
    expect(stats.order).toEqual(["c", "a", "b"]);
    expect(stats.max).toBe(1);
  });
});

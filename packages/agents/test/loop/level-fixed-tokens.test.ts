import { describe, expect, test } from "vitest";
import { z } from "zod";
import { createLoopContext, defineTool, ok, runSubtaskTool, type Tool } from "../../src/index.js";
import { createLevel } from "../../src/loop/level.js";
import { estimateTextTokens } from "../../src/loop/prune-history.js";
import { runLevel } from "../../src/loop/run-level.js";
import { ScriptedProvider } from "../../src/testing/index.js";

const tool = (name: string, description: string): Tool =>
  defineTool({
    name,
    description,
    args: z.object({ query: z.string().describe("what to look up"), limit: z.number().int().optional() }),
    permissionClass: "safe",
    execute: async () => ok("x"),
  });

describe("a level's fixed token estimate (system prompt and tool specs)", () => {
  const tools = [
    tool("lookup", "Looks a thing up"),
    tool("search_é", 'Searches, "quoted" and ünïcode'),
    runSubtaskTool,
  ];
  const level = (toolbelt: Tool[], outputSchema?: Record<string, unknown>) =>
    createLevel(
      {
        provider: new ScriptedProvider(() => ({ text: "done" })),
        model: "m",
        systemPrompt: "You are a bench.",
        history: [],
        tools: toolbelt,
        ctx: createLoopContext({}, { wallClockTimer: false }),
        ...(outputSchema && { outputSchema, depth: 1, parentId: "p" }),
      },
      runLevel,
    );

  test("equals the estimate of the whole specs array as JSON, first and again from the cache", () => {
    // Wrapped anew (as the approval gate does each turn): other tool objects, the same schemas.
    const wrapped = tools.map((t) => ({ ...t, description: `${t.description}, wrapped` }));
    for (const toolbelt of [tools, tools, wrapped, tools.slice(1), []]) {
      const made = level(toolbelt);
      expect(made.fixedTokens).toBe(
        estimateTextTokens("You are a bench.") + estimateTextTokens(JSON.stringify(made.specs)),
      );
      made.dispose();
    }
  });

  test("a subtask's finish tool, made for its own output schema, is counted too", () => {
    const made = level(tools, { type: "object", properties: { answer: { type: "string" } } });
    expect(made.specs.map((s) => s.name)).toContain("finish_subtask");
    expect(made.fixedTokens).toBe(
      estimateTextTokens("You are a bench.") + estimateTextTokens(JSON.stringify(made.specs)),
    );
    made.dispose();
  });
});

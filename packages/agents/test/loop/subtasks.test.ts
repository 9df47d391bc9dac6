import { ExecutionTreeSnapshot, contentText as text } from "@agentwire-chat/protocol";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  buildExecutionTree,
  defineTool,
  type LoopEvent,
  ok,
  type ProviderRequest,
  runSubtaskTool,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { deferred, echoTool, runLoop, toolUpdates } from "./helpers.js";

/** The instructions a level was started with (its first user message). */
const taskOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? text(first.content) : "";
};
const isFirstTurn = (r: ProviderRequest) => r.messages.length === 1;

/** Every nested event's parent_id is a run_subtask call made one level up. */
function checkNesting(events: LoopEvent[]) {
  const subtaskDepth = new Map<string, number>();
  for (const e of toolUpdates(events))
    if (e.name === "run_subtask") subtaskDepth.set(e.tool_call_id, e.depth);
  for (const e of events) {
    if (e.type !== "chunk" && e.type !== "tool_call_update") continue;
    if (e.depth === 0) expect(e.parent_id).toBeNull();
    else expect(subtaskDepth.get(e.parent_id ?? "")).toBe(e.depth - 1);
  }
}

describe("run_subtask", () => {
  test("parallel subtasks run as child loops with parent_id and depth on every event", async () => {
    const bothStarted = deferred();
    let running = 0;
    const meet = defineTool({
      name: "meet",
      description: "waits until both subtasks are inside it",
      args: z.object({}),
      permissionClass: "safe",
      execute: async () => {
        running += 1;
        if (running === 2) bothStarted.resolve();
        await bothStarted.promise; // only reachable by both when the subtasks run concurrently
        return ok("met");
      },
    });
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const task = taskOf(r);
      if (task === "hello") {
        return isFirstTurn(r)
          ? {
              text: "splitting",
              toolCalls: [
                { id: "sa", name: "run_subtask", args: { title: "A", instructions: "task A" } },
                { id: "sb", name: "run_subtask", args: { title: "B", instructions: "task B" } },
              ],
            }
          : { text: "combined" };
      }
      if (task === "task A" && isFirstTurn(r)) {
        return {
          toolCalls: [
            { id: "a1", name: "meet" },
            { id: "a2", name: "run_subtask", args: { title: "A.1", instructions: "task A.1" } },
          ],
        };
      }
      if (task === "task B" && isFirstTurn(r)) return { toolCalls: [{ id: "b1", name: "meet" }] };
      if (task === "task A.1") return { text: "deep answer" };
      return { text: `answer ${task}` };
    });
    const { events, result } = await runLoop(provider, [meet, runSubtaskTool]);
    expect(result).toMatchObject({ status: "complete", text: "combined" });
    expect(result.usage).toMatchObject({ subtasks: 3, llm_calls: 7, tool_calls: 5 });
    checkNesting(events);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.find((e) => e.tool_call_id === "sa")).toMatchObject({ result: "answer task A", depth: 0 });
    expect(ends.find((e) => e.tool_call_id === "a2")).toMatchObject({
      result: "deep answer",
      depth: 1,
      parent_id: "sa",
    });
    const chunk = events.find((e) => e.type === "chunk" && e.content === "deep answer");
    expect(chunk).toMatchObject({ parent_id: "a2", depth: 2 });
    const tree = ExecutionTreeSnapshot.parse(buildExecutionTree(events));
    const shape = tree.nodes.map((n) => [n.id, n.parent_id, n.name, n.title]).sort();
    expect(shape).toEqual(
      [
        ["sa", null, "run_subtask", "A"],
        ["sb", null, "run_subtask", "B"],
        ["a1", "sa", "meet", undefined],
        ["a2", "sa", "run_subtask", "A.1"],
        ["b1", "sb", "meet", undefined],
      ].sort(),
    );
  });

  test("recursion past MAX_DEPTH gets a depth-limit error and the deepest prompt never offers it", async () => {
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const task = taskOf(r);
      const depth = task === "hello" ? 0 : Number(task.split(" ")[1]);
      if (!isFirstTurn(r)) return { text: `done at ${depth}` };
      return {
        toolCalls: [
          {
            id: `d${depth}`,
            name: "run_subtask",
            args: { title: `L${depth + 1}`, instructions: `depth ${depth + 1}` },
          },
        ],
      };
    });
    const { events, result } = await runLoop(provider, [runSubtaskTool, echoTool], {
      limits: { MAX_DEPTH: 2 },
    });
    expect(result.status).toBe("complete");
    const deepest = provider.requests.find((r) => taskOf(r) === "depth 2");
    expect(deepest?.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(deepest?.systemPrompt).not.toContain("run_subtask");
    expect(provider.requests.find((r) => taskOf(r) === "depth 1")?.systemPrompt).toContain("run_subtask");
    const refused = toolUpdates(events).find((e) => e.tool_call_id === "d2" && e.status === "end");
    expect(refused).toMatchObject({ depth: 2, is_error: true });
    expect(String(refused?.result)).toContain("maximum subtask depth (2)");
    expect(provider.requests.some((r) => taskOf(r) === "depth 3")).toBe(false);
  });

  test("tools narrows the child's toolbelt; an unknown name is an error, not a widening", async () => {
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const task = taskOf(r);
      if (task === "hello" && isFirstTurn(r)) {
        return {
          toolCalls: [
            {
              id: "n1",
              name: "run_subtask",
              args: { title: "narrow", instructions: "narrow", tools: ["echo"] },
            },
            {
              id: "n2",
              name: "run_subtask",
              args: { title: "wide", instructions: "wide", tools: ["echo", "shell"] },
            },
          ],
        };
      }
      return { text: `ok ${task}` };
    });
    const { events } = await runLoop(provider, [echoTool, runSubtaskTool]);
    expect(provider.requests.find((r) => taskOf(r) === "narrow")?.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(provider.requests.some((r) => taskOf(r) === "wide")).toBe(false);
    const wide = toolUpdates(events).find((e) => e.tool_call_id === "n2" && e.status === "end");
    expect(wide?.is_error).toBe(true);
    expect(String(wide?.result)).toContain("not available to you, so not to the subtask either: shell");
  });

  const schema = {
    type: "object",
    properties: { city: { type: "string" }, population: { type: "integer" } },
    required: ["city", "population"],
    additionalProperties: false,
  };

  test("output_schema: invalid result is sent back, the fixed one reaches the parent as JSON", async () => {
    const childSteps: ScriptedStep[] = [
      { text: "I think it is Paris." },
      {
        toolCalls: [
          { id: "f1", name: "finish_subtask", args: { result: { city: "Paris", population: "many" } } },
        ],
      },
      {
        toolCalls: [
          { id: "f2", name: "finish_subtask", args: { result: { city: "Paris", population: 2100000 } } },
        ],
      },
    ];
    const provider = new ScriptedProvider((r): ScriptedStep => {
      if (taskOf(r) === "hello") {
        return isFirstTurn(r)
          ? {
              toolCalls: [
                {
                  id: "s",
                  name: "run_subtask",
                  args: { title: "city", instructions: "find", output_schema: schema },
                },
              ],
            }
          : { text: "final" };
      }
      return childSteps.shift() ?? { text: "unexpected" };
    });
    const { events, result } = await runLoop(provider, [runSubtaskTool]);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    const f1 = ends.find((e) => e.tool_call_id === "f1");
    expect(f1?.is_error).toBe(true);
    expect(String(f1?.result)).toContain("result/population must be integer");
    expect(ends.find((e) => e.tool_call_id === "s")).toMatchObject({
      is_error: false,
      result: JSON.stringify({ city: "Paris", population: 2100000 }),
    });
    // The child that answered in plain text was reminded to call finish_subtask.
    const reminded = provider.requests.find((r) =>
      r.messages.some((m) => m.role === "user" && String(m.content).includes("finish_subtask")),
    );
    expect(reminded).toBeDefined();
    expect(provider.requests.find((r) => taskOf(r) === "find")?.tools.map((t) => t.name)).toContain(
      "finish_subtask",
    );
    expect(result.text).toBe("final");
  });

  test("output_schema: a child that never gives a valid result ends with an error for its parent", async () => {
    const provider = new ScriptedProvider((r): ScriptedStep => {
      if (taskOf(r) === "hello") {
        return isFirstTurn(r)
          ? {
              toolCalls: [
                {
                  id: "s",
                  name: "run_subtask",
                  args: { title: "city", instructions: "find", output_schema: schema },
                },
              ],
            }
          : { text: "I could not get it" };
      }
      return { toolCalls: [{ name: "finish_subtask", args: { result: { city: 1 } } }] };
    });
    const { events, result } = await runLoop(provider, [runSubtaskTool], {
      limits: { MAX_ITERATIONS_PER_LEVEL: 3 },
    });
    const end = toolUpdates(events).find((e) => e.tool_call_id === "s" && e.status === "end");
    expect(end?.is_error).toBe(true);
    expect(String(end?.result)).toContain('subtask "city" failed: stopped after 3 model turns');
    expect(result).toMatchObject({ status: "complete", text: "I could not get it" });
  });

  test("an invalid output_schema is refused before any child starts", async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          {
            id: "s",
            name: "run_subtask",
            args: { title: "t", instructions: "i", output_schema: { type: "nonsense" } },
          },
        ],
      },
      { text: "ok" },
    ]);
    const { events } = await runLoop(provider, [runSubtaskTool]);
    const end = toolUpdates(events).find((e) => e.status === "end");
    expect(String(end?.result)).toContain("output_schema is not a valid JSON Schema");
    provider.assertComplete();
  });
});

import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  type Checkpoint,
  type CheckpointEvent,
  continueFromCheckpoint,
  createLoopContext,
  defineTool,
  drainLoop,
  type LoopEvent,
  ok,
  RESTARTED,
  runSubtaskTool,
  runUnifiedAgentLoop,
} from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { echoTool, runLoop, toolUpdates } from "./helpers.js";

const checkpoints = (events: LoopEvent[]) =>
  events.filter((e): e is CheckpointEvent => e.type === "checkpoint").map((e) => e.checkpoint);

/** A tool with a side effect counted in `runs`, of a class that is not read-only. */
function writeTool(name: string, idempotent?: boolean) {
  const runs: string[] = [];
  const tool = defineTool({
    name,
    description: `Test tool ${name}.`,
    args: z.object({ value: z.string() }),
    permissionClass: "workspace_write",
    ...(idempotent !== undefined && { idempotent }),
    execute: async ({ value }) => {
      runs.push(value);
      return ok(`${name}:${value}`);
    },
  });
  return Object.assign(tool, { runs });
}

describe("checkpoints", () => {
  test("the root yields one after each completed model call with calls and each completed batch, none below it", async () => {
    const provider = new ScriptedProvider({
      steps: [
        {
          text: "plan",
          toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "t", instructions: "go" } }],
        },
        { text: ["chi", "ld"], toolCalls: [{ id: "e1", name: "echo", args: { value: "x" } }] },
        { text: "child done" },
        { text: ["all ", "done"] },
      ],
    });
    const { events, result } = await runLoop(provider, [echoTool, runSubtaskTool]);
    expect(result.status).toBe("complete");
    const saved = checkpoints(events);
    // After the root's model call (its call pending) and after its batch; nothing per chunk or subtask step.
    expect(saved).toHaveLength(2);
    const [afterCall, afterBatch] = saved as [Checkpoint, Checkpoint];
    expect(afterCall.root.messages.at(-1)).toMatchObject({ role: "assistant", toolCalls: [{ id: "sub" }] });
    expect(afterCall.root).toMatchObject({ depth: 0, parentId: null, iterationsUsed: 1, results: [] });
    expect(afterBatch.root.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "sub" });
    expect(afterBatch.root.iterationsUsed).toBe(1);
    // Each comes right after what led to it: the model's call frames, then the subtask's end.
    const at = (c: Checkpoint) => events.findIndex((e) => e.type === "checkpoint" && e.checkpoint === c);
    const subEnd = events.findIndex(
      (e) => e.type === "tool_call_update" && e.tool_call_id === "sub" && e.status === "end",
    );
    expect(at(afterCall)).toBeLessThan(subEnd);
    expect(at(afterBatch)).toBeGreaterThan(subEnd);
    // A copy: the loop went on appending after it was taken.
    expect(afterCall.root.messages).toHaveLength(2);
    expect(JSON.parse(JSON.stringify(afterBatch))).toEqual(afterBatch);
  });

  test("continuing: an idempotent call in flight runs again, any other gets the restart error, the model goes on", async () => {
    const once = writeTool("append_line");
    const again = writeTool("put_value", true);
    const first = new ScriptedProvider({
      steps: [
        {
          text: "both",
          toolCalls: [
            { id: "e1", name: "echo", args: { value: "read" } },
            { id: "a1", name: "append_line", args: { value: "line" } },
            { id: "p1", name: "put_value", args: { value: "v" } },
          ],
        },
      ],
    });
    let taken: Checkpoint | undefined;
    // The process "dies" right after the checkpoint: the loop is never resumed past it.
    const ctx = createLoopContext({}, { wallClockTimer: false });
    const loop = runUnifiedAgentLoop({
      provider: first,
      model: "gpt-4o",
      systemPrompt: "sys",
      history: [{ role: "user", content: "go" }],
      tools: [echoTool, once, again],
      ctx,
    });
    for (;;) {
      const next = await loop.next();
      if (next.done) break;
      if (next.value.type === "checkpoint") {
        taken = next.value.checkpoint;
        break;
      }
    }
    await loop.return(undefined as never);
    expect(once.runs).toEqual([]);
    const saved = JSON.parse(JSON.stringify(taken)) as Checkpoint;

    const second = new ScriptedProvider({ steps: [{ text: "finished" }] });
    const events: LoopEvent[] = [];
    const result = await drainLoop(
      continueFromCheckpoint({
        provider: second,
        tools: [echoTool, once, again],
        ctx: createLoopContext({}, { wallClockTimer: false }),
        checkpoint: saved,
      }),
      (e) => {
        events.push(e);
      },
    );
    expect(result).toMatchObject({ status: "complete", text: "finished" });
    expect(once.runs).toEqual([]);
    expect(again.runs).toEqual(["v"]);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.map((e) => [e.tool_call_id, e.result, e.is_error])).toEqual(
      expect.arrayContaining([
        ["a1", RESTARTED, true],
        ["e1", "read", false],
        ["p1", "put_value:v", false],
      ]),
    );
    // The model sees every call answered, the lost one with the restart error.
    const sent = second.requests[0]?.messages ?? [];
    expect(sent.filter((m) => m.role === "tool").map((m) => m.role === "tool" && m.toolCallId)).toEqual(
      expect.arrayContaining(["e1", "a1", "p1"]),
    );
    expect(sent.find((m) => m.role === "tool" && m.toolCallId === "a1")).toMatchObject({
      content: RESTARTED,
      isError: true,
    });
  });

  test("continuing after a completed batch makes the model call again, with no tool run", async () => {
    const once = writeTool("append_line");
    const provider = new ScriptedProvider({ steps: [{ text: "done now" }] });
    const checkpoint: Checkpoint = {
      version: 1,
      model: "gpt-4o",
      root: {
        depth: 0,
        parentId: null,
        systemPrompt: "sys",
        toolNames: null,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            text: "",
            toolCalls: [{ id: "a1", name: "append_line", args: { value: "x" } }],
          },
          { role: "tool", toolCallId: "a1", name: "append_line", content: "append_line:x" },
        ],
        results: [],
        iterationsUsed: 1,
        maxIterations: 10,
      },
    };
    const events: LoopEvent[] = [];
    const result = await drainLoop(
      continueFromCheckpoint({
        provider,
        tools: [once],
        ctx: createLoopContext({}, { wallClockTimer: false }),
        checkpoint,
      }),
      (e) => {
        events.push(e);
      },
    );
    expect(result).toMatchObject({ status: "complete", text: "done now" });
    expect(once.runs).toEqual([]);
    expect(toolUpdates(events)).toEqual([]);
    expect(provider.requests[0]?.messages).toHaveLength(3);
  });
});

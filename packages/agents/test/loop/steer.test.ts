import { describe, expect, test } from "vitest";
import { createLoopContext, type ModelMessage, runSubtaskTool } from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { echoTool, runLoop } from "./helpers.js";

const roles = (messages: readonly ModelMessage[]) =>
  messages.map((m) => (m.role === "user" ? `user:${m.content}` : m.role));

describe("ctx.steer", () => {
  test("joins the root's conversation before its next model call, after the tool results it waited for", async () => {
    const provider = new ScriptedProvider({
      steps: [{ toolCalls: [{ id: "e1", name: "echo", args: { value: "x" } }] }, { text: "done" }],
    });
    const asked: number[] = [];
    const ctx = createLoopContext({}, { wallClockTimer: false });
    ctx.steer = async () => {
      asked.push(provider.calls);
      return [{ role: "user", content: "also check y" }];
    };
    const run = await runLoop(provider, [echoTool], { ctx });
    expect(run.result.status).toBe("complete");
    // Not before the first call (it has the newest message already), once before the second.
    expect(asked).toEqual([1]);
    const second = provider.requests[1]?.messages ?? [];
    expect(roles(second).slice(-3)).toEqual(["assistant", "tool", "user:also check y"]);
    expect(roles(provider.requests[0]?.messages ?? [])).not.toContain("user:also check y");
    // The level's conversation keeps it: a checkpoint after the steer holds it.
    const checkpoints = run.events.filter((e) => e.type === "checkpoint");
    const last = checkpoints.at(-1);
    expect(last && JSON.stringify(last)).toContain("also check y");
  });

  test("is asked only at the root: a subtask's calls never take the turn's steering messages", async () => {
    const provider = new ScriptedProvider({
      steps: [
        { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "t", instructions: "go" } }] },
        { toolCalls: [{ id: "e1", name: "echo", args: { value: "x" } }] },
        { text: "child done" },
        { text: "root done" },
      ],
    });
    let asked = 0;
    const ctx = createLoopContext({}, { wallClockTimer: false });
    ctx.steer = async () => {
      asked++;
      return [];
    };
    const run = await runLoop(provider, [echoTool, runSubtaskTool], { ctx });
    expect(run.result.status).toBe("complete");
    // The root makes two calls: asked once, before its second; the child's two calls never ask.
    expect(asked).toBe(1);
  });
});

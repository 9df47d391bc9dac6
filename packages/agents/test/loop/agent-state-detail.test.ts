import { describe, expect, test } from "vitest";
import { type LoopEvent, runSubtaskTool } from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { echoTool, runLoop } from "./helpers.js";

const states = (events: LoopEvent[]) => events.filter((e) => e.type === "agent_state");

describe("agent_state executing names what runs", () => {
  test("one tool: its name; the model's turns are plain thinking", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "echo", args: { value: "x" } }] },
      { text: "done" },
    ]);
    const { events } = await runLoop(provider, [echoTool]);
    expect(states(events)).toEqual([
      { type: "agent_state", state: "thinking" },
      { type: "agent_state", state: "executing", detail: "echo" },
      { type: "agent_state", state: "thinking" },
    ]);
  });

  test("several calls at once: their labels in call order, a subtask by its title", async () => {
    const provider = new ScriptedProvider((r) => {
      const first = r.messages[0];
      if (first?.role === "user" && first.content === "sub") return { text: "sub done" };
      const turn = r.messages.filter((m) => m.role === "assistant").length;
      return turn === 0
        ? {
            toolCalls: [
              { name: "echo", args: { value: "x" } },
              { name: "run_subtask", args: { title: "Check the docs", instructions: "sub" } },
            ],
          }
        : { text: "done" };
    });
    const { events } = await runLoop(provider, [echoTool, runSubtaskTool]);
    const executing = states(events).filter((s) => s.state === "executing");
    expect(executing).toEqual([{ type: "agent_state", state: "executing", detail: "echo, Check the docs" }]);
  });

  test("more than three calls at once are counted", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [1, 2, 3, 4].map((i) => ({ name: "echo", args: { value: `${i}` } })) },
      { text: "done" },
    ]);
    const { events } = await runLoop(provider, [echoTool]);
    expect(states(events).find((s) => s.state === "executing")?.detail).toBe("4 tools");
  });
});

import { describe, expect, test } from "vitest";
import {
  askUserTool,
  createLoopContext,
  drainLoop,
  type ModelMessage,
  runAgentLoop,
  runSubtaskTool,
  type SuspendedState,
} from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { echoTool, runLoop } from "./helpers.js";

type Seen = { message: ModelMessage; depth: number; parentId: string | null };
const collect =
  (seen: Seen[]) => (message: ModelMessage, where: { depth: number; parentId: string | null }) =>
    seen.push({ message, ...where });
const brief = (s: Seen) =>
  `${s.depth}:${s.message.role}:${s.message.role === "tool" ? s.message.toolCallId : (s.message.role === "assistant" && s.message.text) || ""}`;

describe("ctx.onMessage", () => {
  test("reports each new message of each level, in order, and never the history", async () => {
    const provider = new ScriptedProvider({
      steps: [
        {
          text: "root plan",
          toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "t", instructions: "go" } }],
        },
        { text: "", toolCalls: [{ id: "e1", name: "echo", args: { value: "x" } }] },
        { text: "child done" },
        { text: "all done" },
      ],
    });
    const seen: Seen[] = [];
    const ctx = createLoopContext({}, { wallClockTimer: false, onMessage: collect(seen) });
    await runLoop(provider, [echoTool, runSubtaskTool], { ctx });
    expect(seen.map(brief)).toEqual([
      "0:assistant:root plan",
      "1:assistant:",
      "1:tool:e1",
      "1:assistant:child done",
      "0:tool:sub",
      "0:assistant:all done",
    ]);
    expect(seen.find((s) => s.depth === 1)?.parentId).toBe("sub");
  });

  test("on resume, reports the answered result and the results saved beside it", async () => {
    const provider = new ScriptedProvider({
      steps: [
        {
          toolCalls: [
            { id: "e1", name: "echo", args: { value: "beside" } },
            { id: "q", name: "ask_user", args: { question: "colour?" } },
          ],
        },
        { text: "blue it is" },
      ],
    });
    const tools = [echoTool, askUserTool];
    const first = await runLoop(provider, tools);
    const seen: Seen[] = [];
    const ctx = createLoopContext({}, { wallClockTimer: false, onMessage: collect(seen) });
    const state = first.result.pending as SuspendedState;
    await drainLoop(
      runAgentLoop({ provider, tools, ctx, from: { kind: "suspended", state, answer: "blue" } }),
    );
    expect(seen.map(brief)).toEqual(["0:tool:e1", "0:tool:q", "0:assistant:blue it is"]);
  });
});

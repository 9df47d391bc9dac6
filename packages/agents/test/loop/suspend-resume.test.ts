import { contentText } from "@agentwire-chat/protocol";
import { describe, expect, test } from "vitest";
import {
  askUserTool,
  buildExecutionTree,
  createLoopContext,
  drainLoop,
  type LoopEvent,
  type ProviderRequest,
  runAgentLoop,
  runSubtaskTool,
  type SuspendedState,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { echoTool, runLoop, toolUpdates } from "./helpers.js";

const taskOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};

/** root → "mid" (depth 1) → "leaf" (depth 2), where the leaf asks the user beside an echo call. */
function script(): (r: ProviderRequest) => ScriptedStep {
  return (r) => {
    const task = taskOf(r);
    const turn = r.messages.filter((m) => m.role === "assistant").length;
    if (task === "hello") {
      return turn === 0
        ? {
            text: "delegating",
            toolCalls: [{ id: "root_sub", name: "run_subtask", args: { title: "mid", instructions: "mid" } }],
          }
        : { text: `root got: ${lastTool(r)}` };
    }
    if (task === "mid") {
      return turn === 0
        ? {
            toolCalls: [
              { id: "mid_sub", name: "run_subtask", args: { title: "leaf", instructions: "leaf" } },
            ],
          }
        : { text: `mid got: ${lastTool(r)}` };
    }
    if (task === "leaf") {
      return turn === 0
        ? {
            toolCalls: [
              { id: "leaf_echo", name: "echo", args: { value: "beside" } },
              { id: "ask", name: "ask_user", args: { question: "Which colour?" } },
            ],
          }
        : { text: `leaf got: ${lastTool(r)}` };
    }
    return { error: `unexpected task ${task}` };
  };
}
const lastTool = (r: ProviderRequest) => {
  const m = r.messages.at(-1);
  return m?.role === "tool" ? m.content : "?";
};

describe("suspension and resume", () => {
  test("ask_user at depth 2 suspends the whole tree; resuming with the answer finishes it", async () => {
    const provider = new ScriptedProvider(script());
    const tools = [echoTool, askUserTool, runSubtaskTool];
    const first = await runLoop(provider, tools);
    expect(first.result.status).toBe("waiting_user");
    const pending = first.result.pending as SuspendedState;
    // Plain JSON: it survives a round trip through storage.
    const stored = JSON.parse(JSON.stringify(pending)) as SuspendedState;
    expect(stored).toEqual(pending);
    expect(stored.toolCallId).toBe("ask");
    expect(stored.suspension).toEqual({ kind: "question", question: "Which colour?" });
    expect(stored.levels.map((l) => [l.depth, l.parentId, l.pendingCall.id])).toEqual([
      [0, null, "root_sub"],
      [1, "root_sub", "mid_sub"],
      [2, "mid_sub", "ask"],
    ]);
    expect(stored.levels[2]?.results.map((m) => m.content)).toEqual(["beside"]);
    expect(first.events.slice(-2)).toEqual([
      { type: "question", tool_call_id: "ask", question: "Which colour?" },
      { type: "agent_state", state: "waiting_on_user" },
    ]);
    const firstEnds = toolUpdates(first.events)
      .filter((e) => e.status === "end")
      .map((e) => e.tool_call_id);
    expect(firstEnds).toEqual(["leaf_echo"]);

    const ctx = createLoopContext({}, { wallClockTimer: false });
    const events: LoopEvent[] = [];
    const result = await drainLoop(
      runAgentLoop({ provider, tools, ctx, from: { kind: "suspended", state: stored, answer: "blue" } }),
      (e) => {
        events.push(e);
      },
    );
    expect(result).toMatchObject({ status: "complete", text: "root got: mid got: leaf got: blue" });
    const leafResume = provider.requests.find((r) => taskOf(r) === "leaf" && r.messages.length > 2);
    expect(leafResume?.messages.slice(-2)).toEqual([
      { role: "tool", toolCallId: "leaf_echo", name: "echo", content: "beside" },
      { role: "tool", toolCallId: "ask", name: "ask_user", content: "blue" },
    ]);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.map((e) => [e.tool_call_id, e.depth, e.parent_id])).toEqual([
      ["ask", 2, "mid_sub"],
      ["mid_sub", 1, "root_sub"],
      ["root_sub", 0, null],
    ]);
    expect(result.messages.at(-1)).toEqual({ role: "assistant", text: "root got: mid got: leaf got: blue" });
    // Across both runs, every call of the tree is closed.
    const tree = buildExecutionTree([...first.events, ...events]);
    expect(tree.nodes.map((n) => n.id).sort()).toEqual(["ask", "leaf_echo", "mid_sub", "root_sub"]);
    expect(tree.nodes.find((n) => n.id === "ask")?.result_preview).toBe("blue");
  });

  test("a level that asks again on resume keeps the levels above it waiting", async () => {
    let asked = 0;
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const task = taskOf(r);
      const turn = r.messages.filter((m) => m.role === "assistant").length;
      if (task === "hello") {
        return turn === 0
          ? { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "t", instructions: "child" } }] }
          : { text: `root: ${lastTool(r)}` };
      }
      asked += 1;
      return turn < 2
        ? { toolCalls: [{ id: `q${turn}`, name: "ask_user", args: { question: `q${turn}?` } }] }
        : { text: "child done" };
    });
    const tools = [askUserTool, runSubtaskTool];
    const first = await runLoop(provider, tools);
    const ctx = () => createLoopContext({}, { wallClockTimer: false });
    const second = await drainLoop(
      runAgentLoop({
        provider,
        tools,
        ctx: ctx(),
        from: { kind: "suspended", state: first.result.pending as SuspendedState, answer: "a0" },
      }),
    );
    expect(second.status).toBe("waiting_user");
    expect(second.pending?.toolCallId).toBe("q1");
    expect(second.pending?.levels.map((l) => l.pendingCall.id)).toEqual(["sub", "q1"]);
    const third = await drainLoop(
      runAgentLoop({
        provider,
        tools,
        ctx: ctx(),
        from: { kind: "suspended", state: second.pending as SuspendedState, answer: "a1" },
      }),
    );
    expect(third).toMatchObject({ status: "complete", text: "root: child done" });
    expect(asked).toBe(3);
  });
});

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
  waitingCalls,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { echoTool, runLoop, toolUpdates } from "./helpers.js";

const taskOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};
const turnOf = (r: ProviderRequest) => r.messages.filter((m) => m.role === "assistant").length;
const toolContents = (r: ProviderRequest) =>
  r.messages.flatMap((m) => (m.role === "tool" ? [`${m.toolCallId}=${m.content}`] : []));

/** The root runs subtasks A and B at once; each does some work (an echo), then asks the user. */
function script(): ScriptedProvider {
  return new ScriptedProvider((r): ScriptedStep => {
    const task = taskOf(r);
    const turn = turnOf(r);
    if (task === "hello") {
      if (turn > 0) return { text: `root got ${toolContents(r).join(" | ")}` };
      return {
        toolCalls: [
          { id: "sub_a", name: "run_subtask", args: { title: "A", instructions: "task A" } },
          { id: "sub_b", name: "run_subtask", args: { title: "B", instructions: "task B" } },
        ],
      };
    }
    const name = task === "task A" ? "a" : "b";
    if (turn === 0)
      return { toolCalls: [{ id: `echo_${name}`, name: "echo", args: { value: `work ${name}` } }] };
    if (turn === 1) {
      return {
        toolCalls: [{ id: `ask_${name}`, name: "ask_user", args: { question: `question ${name}?` } }],
      };
    }
    return { text: `${name} finished after ${toolContents(r).join(", ")}` };
  });
}

const tools = [echoTool, askUserTool, runSubtaskTool];
const freshCtx = () => createLoopContext({}, { wallClockTimer: false });
/** Storage between the answers: the state must be plain JSON. */
const stored = (state: SuspendedState | undefined) => JSON.parse(JSON.stringify(state)) as SuspendedState;

async function resume(provider: ScriptedProvider, state: SuspendedState, answer: string) {
  const events: LoopEvent[] = [];
  const result = await drainLoop(
    runAgentLoop({ provider, tools, ctx: freshCtx(), from: { kind: "suspended", state, answer } }),
    (e) => {
      events.push(e);
    },
  );
  return { events, result };
}

describe("parallel sibling suspensions", () => {
  test("both siblings' questions are asked in turn, no work lost, every start closed", async () => {
    const provider = script();
    const first = await runLoop(provider, tools);
    expect(first.result.status).toBe("waiting_user");
    const s1 = stored(first.result.pending);
    const asked1 = s1.toolCallId;
    const other = asked1 === "ask_a" ? "b" : "a";
    expect(["ask_a", "ask_b"]).toContain(asked1);
    // The root level waits on one subtask; the other is deferred with its whole subtask level.
    const root = s1.levels[0];
    expect(root?.deferred?.map((d) => d.call.id)).toEqual([`sub_${other}`]);
    const deferred = root?.deferred?.[0];
    expect(deferred?.suspension).toEqual({ kind: "question", question: `question ${other}?` });
    expect(deferred?.nested?.levels.map((l) => [l.depth, l.parentId, l.pendingCall.id])).toEqual([
      [1, `sub_${other}`, `ask_${other}`],
    ]);
    // Only the first question went out; neither asking call nor subtask has ended yet.
    expect(first.events.filter((e) => e.type === "question")).toEqual([
      { type: "question", tool_call_id: asked1, question: `question ${asked1.slice(4)}?` },
    ]);
    const firstEnds = toolUpdates(first.events).filter((e) => e.status === "end");
    expect(firstEnds.map((e) => e.tool_call_id).sort()).toEqual(["echo_a", "echo_b"]);

    const second = await resume(provider, s1, `answer ${asked1}`);
    expect(second.result.status).toBe("waiting_user");
    const s2 = stored(second.result.pending);
    expect(s2.toolCallId).toBe(`ask_${other}`);
    expect(s2.levels.map((l) => l.pendingCall.id)).toEqual([`sub_${other}`, `ask_${other}`]);
    expect(s2.levels[0]?.deferred).toBeUndefined();
    expect(second.events.slice(-2)).toEqual([
      { type: "question", tool_call_id: `ask_${other}`, question: `question ${other}?` },
      { type: "agent_state", state: "waiting_on_user" },
    ]);
    const firstName = asked1.slice(4);
    expect(
      toolUpdates(second.events)
        .filter((e) => e.status === "end")
        .map((e) => e.tool_call_id),
    ).toEqual([asked1, `sub_${firstName}`]);

    const third = await resume(provider, s2, `answer ask_${other}`);
    expect(third.result.status).toBe("complete");
    // The deferred sibling resumed from its own question: its earlier echo is still in its conversation.
    const otherResumed = provider.requests.filter((r) => taskOf(r) === `task ${other.toUpperCase()}`).at(-1);
    expect(otherResumed && toolContents(otherResumed)).toEqual([
      `echo_${other}=work ${other}`,
      `ask_${other}=answer ask_${other}`,
    ]);
    // Both results reach the root model, in call order.
    expect(third.result.text).toBe(
      "root got sub_a=a finished after echo_a=work a, ask_a=answer ask_a | " +
        "sub_b=b finished after echo_b=work b, ask_b=answer ask_b",
    );
    // Exactly one start and one end for every call of the tree, across the three runs.
    const all = [...first.events, ...second.events, ...third.events];
    const updates = toolUpdates(all);
    for (const id of ["sub_a", "sub_b", "ask_a", "ask_b", "echo_a", "echo_b"]) {
      expect(updates.filter((e) => e.tool_call_id === id).map((e) => e.status)).toEqual(["start", "end"]);
    }
    const tree = buildExecutionTree(all);
    expect(tree.nodes.map((n) => n.id).sort()).toEqual([
      "ask_a",
      "ask_b",
      "echo_a",
      "echo_b",
      "sub_a",
      "sub_b",
    ]);
    // Each subtask asked the model exactly as often as without the pause: none of its work was redone.
    expect(provider.requests.filter((r) => taskOf(r) === "task A")).toHaveLength(3);
    expect(provider.requests.filter((r) => taskOf(r) === "task B")).toHaveLength(3);
  });

  test("a state without `deferred` still resumes, and waitingCalls lists deferred siblings deepest first", async () => {
    const provider = script();
    const first = await runLoop(provider, tools);
    const state = stored(first.result.pending);
    const asked = state.toolCallId.slice(4);
    const other = asked === "a" ? "b" : "a";
    expect(waitingCalls(state).map((c) => [c.id, c.depth, c.parentId])).toEqual([
      [`ask_${asked}`, 1, `sub_${asked}`],
      [`ask_${other}`, 1, `sub_${other}`],
      [`sub_${other}`, 0, null],
      [`sub_${asked}`, 0, null],
    ]);
    // An old state (before deferred existed): the sibling is simply not there; the root runs on.
    const old = stored(state);
    delete old.levels[0]?.deferred;
    const resumed = await resume(provider, old, "x");
    expect(resumed.result.status).toBe("complete");
  });

  test("two direct ask_user calls in one batch keep today's rule: ask_user is serial, the second is not run", async () => {
    const provider = new ScriptedProvider((r): ScriptedStep => {
      if (turnOf(r) === 0) {
        return {
          toolCalls: [
            { id: "q1", name: "ask_user", args: { question: "one?" } },
            { id: "q2", name: "ask_user", args: { question: "two?" } },
          ],
        };
      }
      return { text: toolContents(r).join(" ") };
    });
    const first = await runLoop(provider, tools);
    expect(first.result.pending?.toolCallId).toBe("q1");
    expect(first.result.pending?.levels[0]?.deferred).toBeUndefined();
    const q2End = toolUpdates(first.events).find((e) => e.tool_call_id === "q2" && e.status === "end");
    expect(q2End?.is_error).toBe(true);
    const second = await resume(provider, stored(first.result.pending), "A1");
    expect(second.result.status).toBe("complete");
    expect(second.result.text).toMatch(/^q1=A1 q2=not run/);
  });
});

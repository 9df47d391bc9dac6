import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  askUserTool,
  type Checkpoint,
  type CheckpointEvent,
  type CheckpointLevel,
  CheckpointTree,
  createLoopContext,
  defineTool,
  drainLoop,
  type LoopEvent,
  type ModelMessage,
  ok,
  RESTARTED,
  runAgentLoop,
  runSubtaskTool,
  type SuspendedState,
  type Tool,
} from "../../src/index.js";
import { ScriptedProvider } from "../../src/testing/index.js";
import { echoTool, runLoop, toolUpdates } from "./helpers.js";

const levels = (events: LoopEvent[]) =>
  events.filter((e): e is CheckpointEvent => e.type === "checkpoint").map((e) => e.level);

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

/** A level whose model called append_line (a1) and got its result: its next step is a model call. */
function afterAppend(first: string, extra: Partial<CheckpointLevel> = {}): CheckpointLevel {
  return {
    depth: 0,
    parentId: null,
    systemPrompt: "sys",
    toolNames: null,
    messages: [
      { role: "user", content: first },
      { role: "assistant", text: "", toolCalls: [{ id: "a1", name: "append_line", args: { value: "x" } }] },
      { role: "tool", toolCallId: "a1", name: "append_line", content: "append_line:x" },
    ],
    results: [],
    iterationsUsed: 1,
    maxIterations: 10,
    ...extra,
  };
}

/** Drains a continuation from `checkpoint` with a fresh context. */
async function continued(provider: ScriptedProvider, tools: Tool[], checkpoint: Checkpoint) {
  const events: LoopEvent[] = [];
  const ctx = createLoopContext({}, { wallClockTimer: false });
  const result = await drainLoop(
    runAgentLoop({ provider, tools, ctx, from: { kind: "checkpoint", checkpoint } }),
    (e) => {
      events.push(e);
    },
  );
  return { events, result };
}

/** The tool results a model request carried, as [call id, content]. */
const toolResults = (messages: readonly ModelMessage[]) =>
  messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m.content]] : []));

describe("checkpoints", () => {
  test("each level yields one after each completed model call with calls and each completed batch, nothing per chunk", async () => {
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
    const saved = levels(events);
    expect(saved.map((l) => [l.parentId, l.messages.at(-1)?.role])).toEqual([
      [null, "assistant"],
      ["sub", "assistant"],
      ["sub", "tool"],
      [null, "tool"],
    ]);
    const [afterCall, , , afterBatch] = saved as CheckpointLevel[];
    expect(afterCall?.messages.at(-1)).toMatchObject({ role: "assistant", toolCalls: [{ id: "sub" }] });
    expect(afterCall).toMatchObject({ depth: 0, iterationsUsed: 1, results: [] });
    expect(afterBatch?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "sub" });
    // Each comes right after what led to it: the model's call frames, then the subtask's end.
    const at = (l: CheckpointLevel | undefined) =>
      events.findIndex((e) => e.type === "checkpoint" && e.level === l);
    const subEnd = events.findIndex(
      (e) => e.type === "tool_call_update" && e.tool_call_id === "sub" && e.status === "end",
    );
    expect(at(afterCall)).toBeLessThan(subEnd);
    expect(at(afterBatch)).toBeGreaterThan(subEnd);
    // A copy: the loop went on appending after it was taken.
    expect(afterCall?.messages).toHaveLength(2);

    // Folded as the driver folds them: while the subtask runs, it sits under its call.
    const tree = new CheckpointTree("gpt-4o");
    const folded = saved.map((l) => tree.add(l));
    expect(folded[2]?.root.nested?.sub).toMatchObject({ depth: 1, parentId: "sub", iterationsUsed: 1 });
    expect(folded[3]?.root.nested).toBeUndefined();
  });

  test("in a batch of several calls, each finished call's result is checkpointed while the others run", async () => {
    const provider = new ScriptedProvider({
      steps: [
        {
          toolCalls: [
            { id: "e1", name: "echo", args: { value: "a" } },
            { id: "e2", name: "echo", args: { value: "b" } },
          ],
        },
        { text: "done" },
      ],
    });
    const { events } = await runLoop(provider, [echoTool]);
    expect(levels(events).map((l) => l.results.map((r) => r.toolCallId))).toEqual([
      [],
      ["e1"],
      ["e1", "e2"],
      [],
    ]);
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
    const loop = runAgentLoop({
      provider: first,
      from: {
        kind: "start",
        model: "gpt-4o",
        systemPrompt: "sys",
        history: [{ role: "user", content: "go" }],
      },
      tools: [echoTool, once, again],
      ctx,
    });
    for (;;) {
      const next = await loop.next();
      if (next.done) break;
      if (next.value.type === "checkpoint") {
        taken = { version: 1, model: "gpt-4o", root: next.value.level };
        break;
      }
    }
    await loop.return(undefined as never);
    expect(once.runs).toEqual([]);
    const saved = JSON.parse(JSON.stringify(taken)) as Checkpoint;

    const second = new ScriptedProvider({ steps: [{ text: "finished" }] });
    const { events, result } = await continued(second, [echoTool, once, again], saved);
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
    expect(toolResults(sent).sort()).toEqual([
      ["a1", RESTARTED],
      ["e1", "read"],
      ["p1", "put_value:v"],
    ]);
    expect(sent.find((m) => m.role === "tool" && m.toolCallId === "a1")).toMatchObject({ isError: true });
  });

  test("continuing after a completed batch makes the model call again, with no tool run", async () => {
    const once = writeTool("append_line");
    const provider = new ScriptedProvider({ steps: [{ text: "done now" }] });
    const checkpoint: Checkpoint = { version: 1, model: "gpt-4o", root: afterAppend("go") };
    const { events, result } = await continued(provider, [once], checkpoint);
    expect(result).toMatchObject({ status: "complete", text: "done now" });
    expect(once.runs).toEqual([]);
    expect(toolUpdates(events)).toEqual([]);
    expect(provider.requests[0]?.messages).toHaveLength(3);
  });

  test("continuing a subtask from its own checkpoint, re-running one that had not finished a model call, keeping a finished one", async () => {
    const once = writeTool("append_line");
    const provider = new ScriptedProvider({
      respond: (r) => {
        const first = r.messages[0];
        const task = first?.role === "user" && typeof first.content === "string" ? first.content : "";
        if (task === "part A") return { text: "A done" };
        if (task === "part C") return { text: "C done" };
        return { text: "all parts done" };
      },
    });
    const sub = (id: string, title: string) => ({
      id,
      name: "run_subtask",
      args: { title, instructions: `part ${title}` },
    });
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
          { role: "assistant", text: "", toolCalls: [sub("s1", "A"), sub("s2", "B"), sub("s3", "C")] },
        ],
        results: [{ role: "tool", toolCallId: "s2", name: "run_subtask", content: "B done" }],
        iterationsUsed: 1,
        maxIterations: 10,
        nested: {
          s1: afterAppend("part A", { depth: 1, parentId: "s1", toolNames: ["append_line"], title: "A" }),
        },
      },
    };
    const { events, result } = await continued(provider, [once, runSubtaskTool], checkpoint);
    expect(result).toMatchObject({ status: "complete", text: "all parts done" });
    expect(once.runs).toEqual([]);
    // s1 went on from its checkpoint (its first model call and tool not made again), s3 ran from its
    // start, s2 did not run again; the root's call saw all three results.
    const tasks = provider.requests.map((r) => (r.messages[0] as { content: string }).content);
    expect(tasks).toEqual(["part A", "part C", "go"]);
    expect(provider.requests[0]?.messages).toHaveLength(3);
    const root = provider.requests[2]?.messages ?? [];
    expect(toolResults(root).sort()).toEqual([
      ["s1", "A done"],
      ["s2", "B done"],
      ["s3", "C done"],
    ]);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.map((e) => [e.tool_call_id, e.depth])).toEqual(
      expect.arrayContaining([
        ["s1", 0],
        ["s3", 0],
      ]),
    );
    // The continued subtask's result was checkpointed as soon as it ended.
    expect(
      levels(events)
        .find((l) => l.parentId === null)
        ?.results.map((r) => r.toolCallId),
    ).toEqual(["s2", "s1"]);
  });

  test("a subtask that asks the user while it continues after a restart suspends the turn; the answer resumes it", async () => {
    const provider = new ScriptedProvider({
      respond: (r) => {
        const task = (r.messages[0] as { content: string }).content;
        const last = r.messages.at(-1);
        if (task === "part A")
          return last?.role === "tool" && last.toolCallId === "q1"
            ? { text: `A got ${last.content}` }
            : { toolCalls: [{ id: "q1", name: "ask_user", args: { question: "which?" } }] };
        return { text: "told the user" };
      },
    });
    const idem = writeTool("put_value", true);
    const root = afterAppend("go");
    const checkpoint: Checkpoint = {
      version: 1,
      model: "gpt-4o",
      root: {
        ...root,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            text: "",
            toolCalls: [
              { id: "s1", name: "run_subtask", args: { title: "A", instructions: "part A" } },
              { id: "p1", name: "put_value", args: { value: "y" } },
            ],
          },
        ],
        nested: { s1: afterAppend("part A", { depth: 1, parentId: "s1", toolNames: null, title: "A" }) },
      },
    };
    const tools = [askUserTool, runSubtaskTool, idem];
    const { events, result } = await continued(provider, tools, checkpoint);
    expect(result.status).toBe("waiting_user");
    const pending = result.pending as SuspendedState;
    expect(pending.toolCallId).toBe("q1");
    expect(pending.suspension).toEqual({ kind: "question", question: "which?" });
    expect(pending.levels.map((l) => [l.depth, l.parentId, l.pendingCall.id])).toEqual([
      [0, null, "s1"],
      [1, "s1", "q1"],
    ]);
    // The root's other open call waits for no answer: skipped as beside any call that waits, not run.
    expect(pending.levels[0]?.results).toMatchObject([{ toolCallId: "p1", isError: true }]);
    expect(idem.runs).toEqual([]);
    expect(events.filter((e) => e.type === "question")).toEqual([
      { type: "question", tool_call_id: "q1", question: "which?" },
    ]);
    expect(events.at(-1)).toEqual({ type: "agent_state", state: "waiting_on_user" });
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.map((e) => [e.tool_call_id, e.is_error])).toEqual([["p1", true]]);

    // Stored as JSON and answered: the subtask goes on from its question, then the root.
    const state = JSON.parse(JSON.stringify(pending)) as SuspendedState;
    const after: LoopEvent[] = [];
    const ctx = createLoopContext({}, { wallClockTimer: false });
    const resumed = await drainLoop(
      runAgentLoop({ provider, tools, ctx, from: { kind: "suspended", state, answer: "teal" } }),
      (e) => {
        after.push(e);
      },
    );
    expect(resumed).toMatchObject({ status: "complete", text: "told the user" });
    expect(
      toolUpdates(after)
        .filter((e) => e.status === "end")
        .map((e) => [e.tool_call_id, e.result, e.is_error]),
    ).toEqual([
      ["q1", "teal", false],
      ["s1", "A got teal", false],
    ]);
  });
});

import { contentText } from "@agentwire-chat/protocol";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  createLoopContext,
  defineTool,
  drainLoop,
  type LoopEvent,
  ok,
  type ProviderRequest,
  runAgentLoop,
  runSubtaskTool,
  type SuspendedState,
  type Tool,
} from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { deferred, runLoop, toolUpdates } from "./helpers.js";

/** A tool that takes lock "notes" and waits for `release` before it writes; records when it starts. */
function lockedWriter() {
  const started = deferred();
  const release = deferred();
  const tool = defineTool({
    name: "write_note",
    description: "Write a note.",
    args: z.object({ text: z.string() }),
    permissionClass: "workspace_write",
    requiresExclusiveLock: "notes",
    execute: async ({ text }) => {
      started.resolve();
      await release.promise;
      return ok(`wrote ${text}`);
    },
  });
  return { tool, started, release };
}

/** The server's approval gate in small: every call suspends for approval. */
function gated(tool: Tool): Tool {
  return {
    ...tool,
    execute: async (args) => ({
      type: "suspend",
      suspension: {
        kind: "approval",
        approvalId: "appr_1",
        toolName: tool.name,
        permissionClass: tool.permissionClass,
        args,
      },
    }),
  };
}

const taskOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};

/** The root delegates to a subtask, whose model calls write_note; each level reports what it got. */
function script(): (r: ProviderRequest) => ScriptedStep {
  return (r) => {
    const last = r.messages.at(-1);
    const got = last?.role === "tool" ? last.content : null;
    if (taskOf(r) === "hello") {
      return got === null
        ? { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "notes", instructions: "notes" } }] }
        : { text: `root got: ${got}` };
    }
    return got === null
      ? { toolCalls: [{ id: "w1", name: "write_note", args: { text: "hi" } }] }
      : { text: `sub got: ${got}` };
  };
}

describe("resuming with an approved tool", () => {
  test("the call runs in its own level, under the turn's named lock and parallel permit, and answers it", async () => {
    const provider = new ScriptedProvider(script());
    const writer = lockedWriter();
    const tools = [gated(writer.tool), runSubtaskTool];
    const first = await runLoop(provider, tools);
    expect(first.result.status).toBe("waiting_user");
    const state = JSON.parse(JSON.stringify(first.result.pending)) as SuspendedState;
    expect(state.suspension).toMatchObject({
      kind: "approval",
      toolName: "write_note",
      args: { text: "hi" },
    });

    // The resumed turn's tree: someone else holds lock "notes" and the only permit.
    const ctx = createLoopContext({ MAX_PARALLEL_PER_TURN: 1 }, { wallClockTimer: false });
    const signal = new AbortController().signal;
    const releaseLock = await ctx.locks.acquire("notes", signal);
    expect(await ctx.permits.of("other").take(signal)).toBe(true);

    const events: LoopEvent[] = [];
    const done = drainLoop(
      runAgentLoop({
        provider,
        tools,
        ctx,
        from: { kind: "suspended", state, answer: { approved: writer.tool } },
      }),
      (e) => {
        events.push(e);
      },
    );
    let running = false;
    void writer.started.promise.then(() => {
      running = true;
    });
    // Let the resume reach the lock; the tool must not start while the lock is held.
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(false);
    releaseLock?.();
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(false);
    expect(ctx.locks.isBusy("notes")).toBe(true);
    // Once the permit is free too, it runs.
    ctx.permits.end("other");
    await writer.started.promise;
    writer.release.resolve();
    const result = await done;

    expect(result).toMatchObject({ status: "complete", text: "root got: sub got: wrote hi" });
    expect(ctx.locks.isBusy("notes")).toBe(false);
    const ends = toolUpdates(events).filter((e) => e.status === "end");
    expect(ends.map((e) => [e.tool_call_id, e.depth, e.parent_id, e.result])).toEqual([
      ["w1", 1, "sub", "wrote hi"],
      ["sub", 0, null, "sub got: wrote hi"],
    ]);
    // Counted once, in the segment where the model made the call, not again in this one where it ran.
    expect(first.result.usage.tool_calls).toBe(2);
    expect(result.usage.tool_calls).toBe(0);
  });

  test("a tool that is not the pending call's is refused: the call ends with an error, nothing runs", async () => {
    const provider = new ScriptedProvider(script());
    const writer = lockedWriter();
    const tools = [gated(writer.tool), runSubtaskTool];
    const first = await runLoop(provider, tools);
    const other = defineTool({
      name: "other_tool",
      description: "Another tool.",
      args: z.object({}),
      permissionClass: "workspace_write",
      execute: async () => ok("should not run"),
    });
    const events: LoopEvent[] = [];
    const result = await drainLoop(
      runAgentLoop({
        provider,
        tools,
        ctx: createLoopContext({}, { wallClockTimer: false }),
        from: {
          kind: "suspended",
          state: first.result.pending as SuspendedState,
          answer: { approved: other },
        },
      }),
      (e) => {
        events.push(e);
      },
    );
    const end = toolUpdates(events).find((e) => e.tool_call_id === "w1" && e.status === "end");
    expect(end).toMatchObject({ is_error: true, result: "the approval is for write_note, not other_tool" });
    expect(result.status).toBe("complete");
  });
});

import { describe, expect, test } from "vitest";
import { z } from "zod";
import { defineTool, type LoopEvent, runSubtaskTool, USER_STOP } from "../../src/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/testing/index.js";
import { runLoop, toolUpdates } from "./helpers.js";

describe("cancellation", () => {
  test("a user's stop during a stream: stopped promptly with the partial text, nothing after", async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: ["partial ", "answer"], hold: "until-aborted" }]);
    const run = await runLoop(provider, [], {
      params: { signal: controller.signal },
      onEvent: (e) => {
        if (e.type === "chunk" && e.content === "answer") controller.abort(USER_STOP);
      },
    });
    expect(run.result).toMatchObject({ status: "stopped", text: "partial answer" });
    expect(run.events.at(-1)).toMatchObject({ type: "chunk", content: "answer" });
    expect(run.records[0]?.error).toBe("aborted");
    expect(run.result.messages.at(-1)).toEqual({ role: "assistant", text: "partial answer" });
  });

  test("another abort (shutdown) during a tool: the tool sees the signal, its call ends cancelled, the level interrupted", async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const hang = defineTool({
      name: "hang",
      description: "never finishes on its own",
      args: z.object({}),
      permissionClass: "safe",
      execute: (_args, ctx) => {
        toolSignal = ctx.signal;
        controller.abort();
        return new Promise(() => {});
      },
    });
    const provider = new ScriptedProvider((r): ScriptedStep => {
      const first = r.messages[0];
      return first?.role === "user" && first.content === "hello"
        ? {
            text: "go",
            toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "t", instructions: "child" } }],
          }
        : { toolCalls: [{ id: "h", name: "hang" }] };
    });
    const run = await runLoop(provider, [hang, runSubtaskTool], { params: { signal: controller.signal } });
    expect(toolSignal?.aborted).toBe(true);
    expect(run.result).toMatchObject({ status: "interrupted", text: "go" });
    const updates = toolUpdates(run.events);
    const lastStart = updates.findLastIndex((e) => e.status === "start");
    const after = run.events.slice(run.events.indexOf(updates[lastStart] as LoopEvent) + 1);
    expect(after).toEqual([
      expect.objectContaining({ tool_call_id: "h", status: "end", result: "cancelled", is_error: true }),
      expect.objectContaining({ tool_call_id: "sub", status: "end", is_error: true }),
    ]);
    expect(run.events.some((e) => e.type === "budget_exceeded")).toBe(false);
    expect(provider.calls).toBe(2);
  });
});

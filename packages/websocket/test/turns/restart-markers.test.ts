import type { Checkpoint, CheckpointLevel } from "@agentwire-chat/agents";
import type { ServerFrameOf } from "@agentwire-chat/protocol";
import { describe, expect, it } from "vitest";
import { restartMarkers } from "../../src/turns/restart-markers.js";

const level = (
  parentId: string | null,
  calls: string[],
  done: string[] = [],
  nested?: Record<string, CheckpointLevel>,
): CheckpointLevel => ({
  depth: parentId === null ? 0 : 1,
  parentId,
  systemPrompt: "",
  toolNames: null,
  messages: [
    { role: "user", content: "go" },
    {
      role: "assistant",
      text: "",
      toolCalls: calls.map((id) => ({ id, name: id.startsWith("s") ? "run_subtask" : "echo", args: {} })),
    },
  ],
  results: done.map((id) => ({ role: "tool", toolCallId: id, name: "echo", content: "ok" })),
  iterationsUsed: 1,
  maxIterations: 20,
  ...(nested && { nested }),
});
const checkpoint = (root: CheckpointLevel): Checkpoint => ({ version: 1, model: "m", root });
const start = (id: string, parentId: string | null, extra: object = {}): ServerFrameOf<"tool_call_update"> =>
  ({
    type: "tool_call_update",
    tool_call_id: id,
    name: id.startsWith("s") ? "run_subtask" : "echo",
    status: "start",
    args: { title: id },
    title: id,
    parent_id: parentId,
    depth: parentId === null ? 0 : 1,
    seq: 1,
    thread_id: "th",
    ...extra,
  }) as ServerFrameOf<"tool_call_update">;

describe("restartMarkers", () => {
  it("marks a subtask with no level of its own (it starts again) and one in a model call, not one whose calls run", () => {
    const inModelCall = level("s2", ["a1"], ["a1"]);
    const runningTools = level("s3", ["a2"]);
    const root = level(null, ["s1", "s2", "s3", "e1"], [], { s2: inModelCall, s3: runningTools });
    const frames = [start("s1", null), start("s2", null), start("s3", null), start("a2", "s3")];
    const unstamped = (id: string) => {
      const { seq: _seq, thread_id: _thread, ...frame } = start(id, null);
      return { ...frame, attempt: 2 };
    };
    expect(restartMarkers(frames, checkpoint(root))).toEqual([unstamped("s1"), unstamped("s2")]);
  });

  it("numbers the attempt after those the frames already hold (a second crash), and skips a subtask whose start is not logged", () => {
    const root = level(null, ["s1", "s9"]);
    const frames = [start("s1", null), start("s1", null, { attempt: 2 }), start("s1", null)];
    expect(restartMarkers(frames, checkpoint(root)).map((m) => [m.tool_call_id, m.attempt])).toEqual([
      ["s1", 3],
    ]);
  });

  it("marks a finished subtask never, nor one whose call already has its result", () => {
    const root = level(null, ["s1"], ["s1"]);
    expect(restartMarkers([start("s1", null)], checkpoint(root))).toEqual([]);
  });
});

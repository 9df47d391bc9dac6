/**
 * The AG-UI projection on the recorded native turns (packages/protocol/fixtures/frames): every event
 * valid against AG-UI's own schema, every run accepted by `@ag-ui/client`'s event verifier, and each
 * scenario mapped as docs/ag-ui.md says.
 */

import { verifyEvents } from "@ag-ui/client";
import { type AGUIEvent, EventType } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { AgUiProjection, NODE_ACTIVITY } from "../../src/edges/ag-ui/ag-ui-projection.js";
import { readFixture } from "../contract/frame-fixtures.js";
import { PLAIN_ANSWER_EVENTS } from "./ag-ui-expected.js";

const RUN = { threadId: "client-thread", runId: "run-1" };

function framesOf(scenario: string): ServerFrame[] {
  const fixture = readFixture(scenario);
  if (!fixture) throw new Error(`no fixture ${scenario}`);
  return fixture.frames as ServerFrame[];
}

/** Projects the frames as one run, stopping where the run ends, and checks the run is valid AG-UI. */
async function project(
  frames: ServerFrame[],
  run = RUN,
): Promise<{ events: AGUIEvent[]; rest: ServerFrame[] }> {
  const projection = new AgUiProjection(run);
  const events = projection.start("th_1", []);
  let i = 0;
  while (i < frames.length && !projection.ended) events.push(...projection.push(frames[i++] as ServerFrame));
  expect(projection.ended).toBe(true);
  for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  // The client's own verifier: order, open messages and steps at the end, nothing after the end.
  const verified = await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  expect(verified).toHaveLength(events.length);
  return { events, rest: frames.slice(i) };
}

const types = (events: AGUIEvent[]) => events.map((e) => e.type);
const ofType = <T extends EventType>(events: AGUIEvent[], type: T) =>
  events.filter((e): e is Extract<AGUIEvent, { type: T }> => e.type === type);

describe("AG-UI projection of recorded turns", () => {
  it("a plain answer: one text message, then RUN_FINISHED with the usage", async () => {
    const { events } = await project(framesOf("plain-answer"));
    expect(types(events)).toEqual(PLAIN_ANSWER_EVENTS);
    expect(events[0]).toMatchObject({
      threadId: "client-thread",
      runId: "run-1",
      metadata: { agentwire: { thread_id: "th_1" } },
    });
    expect(
      ofType(events, EventType.TEXT_MESSAGE_CONTENT)
        .map((e) => e.delta)
        .join(""),
    ).toBe("Hello there!");
    expect(events.at(-1)).toMatchObject({
      outcome: { type: "success" },
      usage: [{ inputTokens: 12, outputTokens: 3, totalTokens: 15 }],
    });
  });

  it("a tool call: start, args, end under the text that asked, its result, its node", async () => {
    const { events } = await project(framesOf("tool-call"));
    const [firstText] = ofType(events, EventType.TEXT_MESSAGE_START);
    expect(ofType(events, EventType.TOOL_CALL_START)).toEqual([
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: "call_1",
        toolCallName: "read_file",
        parentMessageId: firstText?.messageId,
      },
    ]);
    expect(JSON.parse(ofType(events, EventType.TOOL_CALL_ARGS)[0]?.delta ?? "")).toEqual({
      path: "notes.txt",
    });
    expect(ofType(events, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({
      toolCallId: "call_1",
      role: "tool",
    });
    expect(ofType(events, EventType.TOOL_CALL_RESULT)[0]?.content).toContain("buy milk");
    expect(ofType(events, EventType.ACTIVITY_SNAPSHOT)[0]).toMatchObject({
      messageId: "node:call_1",
      activityType: NODE_ACTIVITY,
      content: { id: "call_1", parent_id: null, depth: 0, name: "read_file", status: "running" },
    });
    expect(ofType(events, EventType.ACTIVITY_DELTA)[0]?.patch).toContainEqual({
      op: "replace",
      path: "/status",
      value: "done",
    });
    // The answer after the call is a second text message.
    expect(ofType(events, EventType.TEXT_MESSAGE_START)).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
  });

  it("parallel subtasks: a step each and a node each, their text streamed into their own node", async () => {
    const { events } = await project(framesOf("parallel-subtasks"));
    expect(ofType(events, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual([
      "subtask:sub_a",
      "subtask:sub_b",
    ]);
    expect(ofType(events, EventType.STEP_FINISHED).map((e) => e.stepName)).toEqual([
      "subtask:sub_a",
      "subtask:sub_b",
    ]);
    const nodes = ofType(events, EventType.ACTIVITY_SNAPSHOT).map((e) => e.content);
    expect(nodes).toEqual([
      expect.objectContaining({ id: "sub_a", parent_id: null, depth: 0, title: "Part A" }),
      expect.objectContaining({ id: "sub_b", parent_id: null, depth: 0, title: "Part B" }),
    ]);
    const lastText = (id: string) =>
      ofType(events, EventType.ACTIVITY_DELTA)
        .filter((e) => e.messageId === `node:${id}`)
        .flatMap((e) => e.patch)
        .filter((op) => op.path === "/text")
        .at(-1);
    expect(lastText("sub_a")).toMatchObject({ value: "result-A" });
    expect(lastText("sub_b")).toMatchObject({ value: "result-B" });
    // While streaming, each chunk is appended alone (a delta the size of its chunk, not of the text so far).
    const streamed = (id: string) =>
      ofType(events, EventType.ACTIVITY_DELTA)
        .filter((e) => e.messageId === `node:${id}`)
        .flatMap((e) => e.patch)
        .filter((op) => op.path === "/text_parts/-")
        .map((op) => (op as { value: string }).value);
    expect(streamed("sub_a").join("")).toBe("result-A");
    expect(streamed("sub_b").join("")).toBe("result-B");
    // Subtask text never leaks into the answer.
    expect(
      ofType(events, EventType.TEXT_MESSAGE_CONTENT)
        .map((e) => e.delta)
        .join(""),
    ).toBe("Splitting.final: result-A | result-B");
  });

  it("a subtask a restart cut (its `attempt` start): no second tool call or step, its node starts its new attempt", async () => {
    const frames = framesOf("parallel-subtasks");
    const firstText = frames.findIndex((f) => f.type === "chunk" && f.parent_id === "sub_a");
    const start = frames.find(
      (f) => f.type === "tool_call_update" && f.tool_call_id === "sub_a",
    ) as ServerFrame;
    const restarted: ServerFrame[] = [
      ...frames.slice(0, firstText + 1),
      { type: "agent_state", state: "resumed", detail: "the server restarted" },
      { ...start, attempt: 2 } as ServerFrame,
      ...frames.slice(firstText + 1),
    ];
    const { events } = await project(restarted);
    expect(ofType(events, EventType.TOOL_CALL_START).map((e) => e.toolCallId)).toEqual(["sub_a", "sub_b"]);
    expect(ofType(events, EventType.STEP_STARTED).map((e) => e.stepName)).toEqual([
      "subtask:sub_a",
      "subtask:sub_b",
    ]);
    const snapshots = ofType(events, EventType.ACTIVITY_SNAPSHOT).map((e) => e.content);
    expect(snapshots.filter((n) => (n as { id: string }).id === "sub_a")).toHaveLength(2);
  });

  it("a question: RUN_FINISHED with its interrupt; the next run carries the answer as the tool's result", async () => {
    const { events, rest } = await project(framesOf("ask-user"));
    expect(events.at(-1)).toEqual({
      type: EventType.RUN_FINISHED,
      threadId: "client-thread",
      runId: "run-1",
      outcome: {
        type: "interrupt",
        interrupts: [
          expect.objectContaining({ id: "question:ask_1", message: "Which colour?", toolCallId: "ask_1" }),
        ],
      },
    });
    const next = await project(rest, { threadId: "client-thread", runId: "run-2" });
    expect(ofType(next.events, EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: "ask_1", content: "blue" }),
    ]);
    expect(
      ofType(next.events, EventType.TEXT_MESSAGE_CONTENT)
        .map((e) => e.delta)
        .join(""),
    ).toBe("Painting it blue.");
    expect(next.events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
  });

  it("a provider error: the partial text closed, then RUN_ERROR with the stable code", async () => {
    const { events } = await project(framesOf("provider-error"));
    expect(types(events).slice(-2)).toEqual([EventType.TEXT_MESSAGE_END, EventType.RUN_ERROR]);
    expect(events.at(-1)).toMatchObject({ code: "provider_error", message: "upstream overloaded" });
  });

  it("a stopped turn finishes cancelled; a budget breach is RUN_ERROR budget_exceeded", async () => {
    expect((await project(framesOf("stop-mid-stream"))).events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: "cancelled" },
    });
    expect((await project(framesOf("budget-exceeded"))).events.at(-1)).toMatchObject({
      type: EventType.RUN_ERROR,
      code: "budget_exceeded",
    });
  });

  it("a refused command ends the run at once with its code", () => {
    const projection = new AgUiProjection(RUN);
    expect(projection.push({ type: "error", code: "busy", message: "a turn is running" })).toEqual([
      { type: EventType.RUN_ERROR, code: "busy", message: "a turn is running" },
    ]);
    expect(projection.ended).toBe(true);
    expect(projection.push({ type: "agent_state", state: "idle" })).toEqual([]);
  });

  it("scratchpad patches become state deltas against the snapshot the run started from", () => {
    const item = (id: string, title: string) => ({
      id,
      kind: "task" as const,
      title,
      details: "",
      status: "active" as const,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    });
    const projection = new AgUiProjection(RUN);
    expect(projection.start("th_1", [item("s1", "one")])[1]).toEqual({
      type: EventType.STATE_SNAPSHOT,
      snapshot: { scratchpad: [item("s1", "one")] },
    });
    expect(
      projection.push({ type: "scratchpad_patch", items: [item("s2", "two"), item("s1", "uno")] }),
    ).toEqual([
      {
        type: EventType.STATE_DELTA,
        delta: [
          { op: "add", path: "/scratchpad/-", value: item("s2", "two") },
          { op: "replace", path: "/scratchpad/0", value: item("s1", "uno") },
        ],
      },
    ]);
    expect(projection.push({ type: "scratchpad_patch", items: [], cleared: true })).toEqual([
      { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/scratchpad", value: [] }] },
    ]);
  });
});

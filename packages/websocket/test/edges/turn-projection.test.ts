import type { ServerFrame } from "@agentwire-chat/protocol";
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { TurnProjection } from "../../src/edges/ai-sdk/turn-projection.js";
import type { UiChunk } from "../../src/edges/ai-sdk/ui-chunks.js";
import { readFixture } from "../contract/frame-fixtures.js";

/** The recorded turn's frames projected, up to where a live response would end. */
function project(scenario: string): { chunks: UiChunk[]; ended: "done" | "waiting" | undefined } {
  const fixture = readFixture(scenario);
  if (!fixture) throw new Error(`no fixture ${scenario}`);
  const projection = new TurnProjection();
  const chunks: UiChunk[] = [];
  for (const frame of fixture.frames as ServerFrame[]) {
    const { chunks: out, done, waiting } = projection.push(frame);
    chunks.push(...out);
    if (done) return { chunks, ended: "done" };
    if (waiting) return { chunks: [...chunks, ...projection.close()], ended: "waiting" };
  }
  return { chunks, ended: undefined };
}

/** The assistant message the AI SDK's own stream reader builds from the chunks (it throws on an invalid one). */
async function messageOf(chunks: UiChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({ stream, terminateOnError: true }))
    last = message;
  if (!last) throw new Error("no message");
  return last;
}

const text = (m: UIMessage) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("the AI SDK projection of the recorded native turns", () => {
  it("a tool call: one tool part with its output, two steps, finish stop", async () => {
    const { chunks, ended } = project("tool-call");
    expect(ended).toBe("done");
    const message = await messageOf(chunks);
    expect(message.id).toMatch(/^aw-/);
    const tools = message.parts.filter((p) => p.type === "dynamic-tool");
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ state: "output-available" });
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  it("parallel subtasks: nodes keyed by call id with their text, tool parts only at the root", async () => {
    const message = await messageOf(project("parallel-subtasks").chunks);
    type Node = {
      id: string;
      parent_id: string | null;
      depth: number;
      name: string;
      status: string;
      text: string;
    };
    const nodes = message.parts
      .filter((p) => p.type === "data-agentwire-node")
      .map((p) => (p as unknown as { data: Node }).data);
    expect(nodes.every((n) => n.status === "complete")).toBe(true);
    const subtasks = nodes.filter((n) => n.name === "run_subtask");
    expect(subtasks.map((n) => [n.parent_id, n.depth])).toEqual([
      [null, 0],
      [null, 0],
    ]);
    // Each subtask's node holds its own level's text, not its sibling's.
    expect(subtasks.map((n) => n.text)).toEqual(["result-A", "result-B"]);
    expect(text(message)).toContain("final");
  });

  it("a question ends the response with finish tool-calls and the ask_user part waiting for its output", async () => {
    const { chunks, ended } = project("ask-user");
    expect(ended).toBe("waiting");
    const message = await messageOf(chunks);
    expect(message.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({
      toolName: "ask_user",
      state: "input-available",
      input: { question: "Which colour?" },
    });
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "tool-calls",
      messageMetadata: { agentwire: { status: "waiting_user" } },
    });
  });

  it("budget, provider error and stop end with their status, reason and usage in the metadata", async () => {
    expect(project("budget-exceeded").chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "length",
      messageMetadata: { agentwire: { status: "budget_exceeded", budget_exceeded: { reason: "llm_calls" } } },
    });
    const failed = project("provider-error").chunks;
    expect(failed).toContainEqual({ type: "error", errorText: "provider_error: upstream overloaded" });
    expect(failed.at(-1)).toMatchObject({ type: "finish", finishReason: "error" });
    const stopped = project("stop-mid-stream").chunks;
    expect(stopped.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "other",
      messageMetadata: { agentwire: { status: "stopped", usage: { llm_calls: 1 } } },
    });
    expect(text(await messageOf(stopped))).toBe("Once upon a time");
  });

  it("gives the same chunks for the same frames: a replay rebuilds the message exactly", () => {
    for (const scenario of ["tool-call", "parallel-subtasks", "ask-user"]) {
      expect(project(scenario)).toEqual(project(scenario));
    }
  });
});

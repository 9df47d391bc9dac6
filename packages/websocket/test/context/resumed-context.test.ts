import type { ServerFrame, ServerFrameOf } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { threadOf } from "../chat/turn-helpers.js";
import { settings } from "./context-fixtures.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const framesOf = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is ServerFrameOf<T> => f.type === type);

describe("context_usage in a turn resumed after the user's answer", () => {
  it("comes before the resumed root call too, with the scratchpad the turn wrote before it waited", async () => {
    server = await startChatServer([
      {
        toolCalls: [
          {
            id: "note",
            name: "scratchpad_update",
            args: { ops: [{ op: "add", kind: "note", title: "The user likes short answers, always." }] },
          },
        ],
      },
      { toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Which format?" } }] },
      { text: "Done in markdown." },
    ]);
    server.chat.context = settings();
    const client = await server.connect();
    client.command("chat_message", { content: "write it up" });
    const before = await client.collectUntil(
      (f) => f.type === "agent_state" && f.state === "waiting_on_user",
    );
    // Two root calls before the question, each with its numbers; the scratchpad was empty for both.
    expect(framesOf(before, "context_usage").map((f) => f.scratchpad_tokens)).toEqual([0, 0]);
    const threadId = threadOf(before);

    client.command("answer", { thread_id: threadId, tool_call_id: "q1", answer: "markdown" });
    const after = await client.collectUntil(isDone);
    expectWellFormedTurn(after, (before.at(-1) as { seq: number }).seq + 1);
    const usage = framesOf(after, "context_usage");
    expect(usage).toHaveLength(1);
    // Sent before the resumed call's answer, and it counts the note the turn added before it waited.
    const at = (f: ServerFrame) => after.indexOf(f);
    const firstChunk = after.find((f) => f.type === "chunk" && f.depth === 0 && !f.done);
    expect(firstChunk).toBeDefined();
    expect(at(usage[0] as ServerFrame)).toBeLessThan(at(firstChunk as ServerFrame));
    expect(usage[0]).toMatchObject({ budget: expect.any(Number), messages_summarized: 0 });
    expect(usage[0]?.scratchpad_tokens).toBeGreaterThan(0);
    expect(usage[0]?.history_tokens).toBeGreaterThan(0);
  });
});

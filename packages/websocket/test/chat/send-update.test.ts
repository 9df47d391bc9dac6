import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

describe("send_update", () => {
  it("sends a progress_update without ending the turn; stored with the turn and replayed on resume", async () => {
    server = await startChatServer([
      { toolCalls: [{ id: "up_1", name: "send_update", args: { message: "Read 3 of 5 files." } }] },
      { text: "All five read." },
    ]);
    const client = await server.connect();
    client.command("chat_message", { content: "read the files" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const update = frames.find((f): f is Frame<"progress_update"> => f.type === "progress_update");
    expect(update).toMatchObject({
      tool_call_id: "up_1",
      message: "Read 3 of 5 files.",
      parent_id: null,
      depth: 0,
    });
    // The turn went on after it: the model got "sent" back and answered.
    const second = server.provider.requests[1];
    expect(second?.messages.at(-1)).toMatchObject({ role: "tool", content: "sent" });
    const threadId = threadOf(frames);

    const rows = await storedMessages(server, threadId);
    const final = rows.at(-1);
    expect(final).toMatchObject({ role: "assistant", content: "All five read." });
    expect(JSON.stringify(final?.execution_tree)).toContain("Read 3 of 5 files.");

    const again = await server.connect();
    again.command("resume_chat", { thread_id: threadId, last_seq: 0 });
    const replay = await again.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.filter((f) => f.type === "progress_update")).toEqual([update]);
  });

  it("inside a subtask the update nests under it", async () => {
    server = await startChatServer((request) => {
      const first = request.messages[0];
      const sub = first?.role === "user" && first.content === "sub:work";
      const answered = request.messages.some((m) => m.role === "tool");
      if (sub)
        return answered
          ? { text: "child done" }
          : { toolCalls: [{ id: "up_child", name: "send_update", args: { message: "child halfway" } }] };
      return answered
        ? { text: "parent done" }
        : {
            toolCalls: [
              { id: "sub_1", name: "run_subtask", args: { title: "Work", instructions: "sub:work" } },
            ],
          };
    });
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    const frames = await client.collectUntil(isDone);
    expect(frames.find((f) => f.type === "progress_update")).toMatchObject({
      tool_call_id: "up_child",
      message: "child halfway",
      parent_id: "sub_1",
      depth: 1,
    });
  });

  it("refuses an empty or oversized message as a tool error; no frame is sent", async () => {
    server = await startChatServer([
      {
        toolCalls: [
          { id: "up_empty", name: "send_update", args: { message: "" } },
          { id: "up_long", name: "send_update", args: { message: "x".repeat(2001) } },
        ],
      },
      { text: "ok" },
    ]);
    const client = await server.connect();
    client.command("chat_message", { content: "go" });
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "progress_update")).toBe(false);
    const results = server.provider.requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(results).toHaveLength(2);
    for (const r of results) expect(JSON.stringify(r)).toContain("invalid arguments for send_update");
  });
});

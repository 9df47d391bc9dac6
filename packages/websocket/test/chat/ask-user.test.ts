import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const instructionsOf = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" && typeof first.content === "string" ? first.content : "";
};
const toolResult = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last.content : undefined;
};

/** Root → run_subtask "sub_1" → ask_user "ask_1"; each level answers with what its call returned. */
const askInSubtask = (request: ProviderRequest): ScriptedStep => {
  const result = toolResult(request);
  if (instructionsOf(request) === "sub:ask") {
    return result === undefined
      ? { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] }
      : { text: `child got: ${result}` };
  }
  return result === undefined
    ? {
        text: "Asking.",
        toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Ask", instructions: "sub:ask" } }],
      }
    : { text: `final: ${result}` };
};

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

describe("ask_user inside a subtask", () => {
  it("asks, survives a reconnect (question replayed, waiting_on_user), and the answer reaches the model", async () => {
    server = await startChatServer(askInSubtask);
    const first = await server.connect();
    first.command("chat_message", { content: "pick a color for me" });
    const head = await first.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
    const question = head.find((f): f is Frame<"question"> => f.type === "question");
    expect(question).toMatchObject({ tool_call_id: "ask_1", question: "Which color?" });
    const askStart = head.find((f) => f.type === "tool_call_update" && f.tool_call_id === "ask_1");
    expect(askStart).toMatchObject({ status: "start", parent_id: "sub_1", depth: 1 });
    const threadId = threadOf(head);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
    // The old client saw everything up to the frame before the question, then went away.
    const seenUpTo = (question?.seq ?? 0) - 1;
    await first.close();

    const second = await server.connect();
    second.command("resume_chat", { thread_id: threadId, last_seq: seenUpTo });
    const replay = await second.collectUntil((f) => f.type === "chat_resumed");
    expect(replay.map((f) => f.type)).toEqual(["question", "agent_state", "chat_resumed"]);
    expect(replay[0]).toEqual(question);
    expect(replay[2]).toMatchObject({ status: "waiting_on_user", replayed: 2, last_seq: seenUpTo + 2 });

    second.command("answer", { thread_id: threadId, tool_call_id: "nope", answer: "red" }, "wrong");
    expect(await second.next("error")).toMatchObject({ code: "bad_request", request_id: "wrong" });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");

    second.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" }, "a1");
    second.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "green" }, "a2");
    const rest = await second.collectUntil(isDone);
    const errors = second.received.filter((f): f is Frame<"error"> => f.type === "error");
    expect(errors.map((e) => [e.code, e.request_id])).toEqual([
      ["bad_request", "wrong"],
      ["bad_request", "a2"],
    ]);
    const turnFrames = rest.filter((f) => f.type !== "error");
    expectWellFormedTurn(turnFrames, seenUpTo + 3);
    expectStartsEnded([...head, ...turnFrames]);
    const askEnd = turnFrames.find((f) => f.type === "tool_call_update" && f.tool_call_id === "ask_1");
    expect(askEnd).toMatchObject({ status: "end", result: "blue", parent_id: "sub_1", depth: 1 });
    expect(turnFrames.find((f) => f.type === "tool_call_update" && f.tool_call_id === "sub_1")).toMatchObject(
      {
        status: "end",
        result: "child got: blue",
        depth: 0,
      },
    );
    // The model saw the answer as the result of its ask_user call, and only that answer.
    const childAfter = server.provider.requests.find((r) => instructionsOf(r) === "sub:ask" && toolResult(r));
    expect(childAfter?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "ask_1", content: "blue" });
    expect(JSON.stringify(server.provider.requests)).not.toContain("green");
    expect(finalRow(turnFrames)).toMatchObject({ content: "final: child got: blue", status: "complete" });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
    const tree = finalRow(turnFrames).execution_tree;
    expect(tree?.nodes.map((n) => [n.id, n.parent_id])).toEqual([
      ["sub_1", null],
      ["ask_1", "sub_1"],
    ]);
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("refuses an answer when nothing waits", async () => {
    server = await startChatServer([{ text: "no question" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi" });
    const threadId = threadOf([await client.next("thread")]);
    await client.collectUntil(isDone);
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "x" });
    expect(await client.next("error")).toMatchObject({ code: "bad_request" });
  });
});

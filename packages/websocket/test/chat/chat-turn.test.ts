import type { ServerFrame, StoredMessage } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const types = (frames: ServerFrame[]) => frames.map((f) => f.type);

describe("chat turn over the socket", () => {
  it("answers a plain message: thread first, user and final rows stored, done last, no nested events", async () => {
    server = await startChatServer([{ text: ["Hel", "lo!"], usage: { inputTokens: 10, outputTokens: 3 } }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi there" }, "r1");
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(types(frames)).toEqual([
      "thread",
      "message",
      "turn_started",
      "agent_state",
      "chunk",
      "chunk",
      "message",
      "usage",
      "agent_state",
      "chunk",
    ]);
    expect(frames.some((f) => f.type === "tool_call_update")).toBe(false);
    const threadId = (frames[0] as { thread_id: string }).thread_id;
    const final = frames[6] as Extract<ServerFrame, { type: "message" }>;
    expect(final.message).toMatchObject({
      role: "assistant",
      content: "Hello!",
      status: "complete",
      provider: "scripted",
    });
    expect(final.message.execution_tree).toEqual({ version: 1, nodes: [] });
    expect(frames[7]).toMatchObject({
      type: "usage",
      input_tokens: 10,
      output_tokens: 3,
      llm_calls: 1,
      cost_known: false,
    });
    const { messages: rows } = (await (await server.fetch(`/api/threads/${threadId}/messages`)).json()) as {
      messages: StoredMessage[];
    };
    expect(rows.map((r) => [r.role, r.content, r.status])).toEqual([
      ["user", "hi there", "complete"],
      ["assistant", "Hello!", "complete"],
    ]);
    const turn = await server.repos.turns.latest("local", threadId);
    expect(turn?.status).toBe("complete");
    expect(await server.repos.llmCalls.forTurn("local", turn?.id ?? "")).toHaveLength(1);
  });

  it("continues a thread with its history and a seq that goes on without a gap", async () => {
    server = await startChatServer([{ text: "first" }, { text: "second" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "one" });
    const first = await client.collectUntil(isDone);
    const threadId = (first[0] as { thread_id: string }).thread_id;
    client.command("chat_message", { content: "two", thread_id: threadId });
    const second = await client.collectUntil(isDone);
    expectWellFormedTurn(second, first.length + 1);
    expect(server.provider.requests[1]?.messages).toEqual([
      { role: "user", content: "one" },
      { role: "assistant", text: "first" },
      { role: "user", content: "two" },
    ]);
  });

  it("refuses an unknown provider with bad_request before storing anything", async () => {
    server = await startChatServer([]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi", provider: "nope" }, "r9");
    const error = await client.next("error");
    expect(error).toMatchObject({ code: "bad_request", request_id: "r9" });
    expect(error.message).toContain("nope");
    expect(await server.repos.threads.list("local")).toEqual([]);
    await client.ping();
  });

  it("answers not_found for a thread that is not there", async () => {
    server = await startChatServer([]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi", thread_id: "missing" });
    expect(await client.next("error")).toMatchObject({ code: "not_found" });
  });

  it("accepts the deprecated fields and ignores them", async () => {
    server = await startChatServer([{ text: "ok" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi", agent_mode: true, tools: ["rm"], collections: ["c"] });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(server.provider.requests[0]?.tools.map((t) => t.name).sort()).toEqual([
      "ask_user",
      "create_plan",
      "run_subtask",
      "scratchpad_update",
      "send_update",
    ]);
  });

  it("answers unavailable for the workflow and media routes, and a bare workflow_id goes to the agent", async () => {
    server = await startChatServer([{ text: "agent" }]);
    const client = await server.connect();
    client.command("chat_message", { content: "x", workflow_target: "workflow", workflow_id: "w" });
    expect(await client.next("error")).toMatchObject({ code: "unavailable" });
    client.command("chat_message", { content: "x", media_generation: { mode: "image" } });
    expect(await client.next("error")).toMatchObject({ code: "unavailable" });
    client.command("chat_message", { content: "x", workflow_id: "w", media_generation: { mode: "chat" } });
    const frames = await client.collectUntil(isDone);
    expect(frames.find((f) => f.type === "chunk")).toMatchObject({ content: "agent" });
  });

  it("reports a provider failure as provider_error, stores the partial answer, and the socket goes on", async () => {
    server = await startChatServer([
      { text: "partial ", error: { message: "upstream overloaded", status: 529 } },
    ]);
    const client = await server.connect();
    client.command("chat_message", { content: "hi" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(frames.find((f) => f.type === "error")).toMatchObject({ code: "provider_error" });
    const final = frames.filter((f) => f.type === "message").at(-1) as Extract<
      ServerFrame,
      { type: "message" }
    >;
    expect(final.message).toMatchObject({ status: "error", content: "partial " });
    await client.ping();
  });
});

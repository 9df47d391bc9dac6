/**
 * Issue 38, conversations as trees, through the real socket: linear threads unchanged, regenerate,
 * edit (chat_message with parent_message_id), GET ?leaf= and PUT current_leaf. The model is a scripted
 * provider; what it was sent is asserted on its recorded requests.
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame, ThreadSummary } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import {
  branch,
  errorFor,
  expectChained,
  type Frame,
  finalOf,
  lastUser,
  putLeaf,
  rows,
  seen,
  shape,
  threadOf,
} from "./conversation-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers `re:<last user text>#<call>`; a user text in `held` waits for its gate first. */
function answering(held: Record<string, Promise<void>> = {}) {
  return (request: ProviderRequest, call: number): ScriptedStep => {
    const text = lastUser(request);
    return { text: `re:${text}#${call}`, ...(held[text] && { gate: held[text] }) };
  };
}

/** Sends a chat_message and returns the turn's frames up to its done. */
async function turn(client: TestClient, data: Record<string, unknown>): Promise<ServerFrame[]> {
  client.command("chat_message", data);
  return client.collectUntil(isDone);
}

const userRow = (frames: ServerFrame[]) =>
  frames.find((f): f is Frame<"message"> => f.type === "message" && f.message.role === "user")?.message;

describe("a linear thread", () => {
  it("chains every row to the one before it, has no sibling_ids, and each turn says which user message it answers", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const first = await turn(client, { content: "one" });
    const threadId = threadOf(first);
    const second = await turn(client, { content: "two", thread_id: threadId });
    for (const frames of [first, second]) {
      const user = userRow(frames);
      const at = frames.findIndex((f) => f.type === "message" && f.message.id === user?.id);
      expect(frames[at + 1]).toMatchObject({ type: "turn_started", user_message_id: user?.id });
      expect(frames.filter((f) => f.type === "turn_started")).toHaveLength(1);
    }
    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual(["user:one", "assistant:re:one#0", "user:two", "assistant:re:two#1"]);
    expectChained(messages);
    expect(messages.every((m) => m.sibling_ids === undefined)).toBe(true);
    // The message frames carry the same parents as the stored rows.
    expect(userRow(second)?.parent_message_id).toBe(messages[1]?.id);
    const list = (await (await server.fetch("/api/threads")).json()) as { threads: ThreadSummary[] };
    expect(list.threads.find((t) => t.id === threadId)?.current_leaf_id).toBe(messages[3]?.id);
    expect(list.threads.find((t) => t.id === threadId)?.queued).toBeUndefined();
    // The second model call saw the whole path.
    expect(seen(server.provider.requests[1])).toEqual(["user:one", "assistant:re:one#0", "user:two"]);
  });
});

describe("regenerate", () => {
  it("answers a user message again as a sibling of the old answer; the model sees the path up to it, not the old answer", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const t1 = await turn(client, { content: "q1" });
    const threadId = threadOf(t1);
    const q1 = userRow(t1)!;
    const oldAnswer = finalOf(t1);
    await turn(client, { content: "q2", thread_id: threadId });

    client.command("regenerate", { thread_id: threadId, message_id: q1.id }, "regen");
    const frames = await client.collectUntil(isDone);
    expect(frames.filter((f) => f.type === "error")).toEqual([]);
    // No new user message: turn_started names the answered one.
    expect(frames.some((f) => f.type === "message" && f.message.role === "user")).toBe(false);
    expect(frames.find((f) => f.type === "turn_started")).toMatchObject({ user_message_id: q1.id });
    const answer = finalOf(frames);
    expect(answer).toMatchObject({ role: "assistant", content: "re:q1#2", parent_message_id: q1.id });

    // The model's request: the path up to q1, neither the old answer nor q2.
    expect(seen(server.provider.requests[2])).toEqual(["user:q1"]);

    // The current branch moved to the new answer; it has the old answer as its sibling.
    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual(["user:q1", "assistant:re:q1#2"]);
    expectChained(messages);
    expect(messages[1]?.sibling_ids).toEqual([oldAnswer.id, answer.id]);
    expect(messages[0]?.sibling_ids).toBeUndefined();
    const list = (await (await server.fetch("/api/threads")).json()) as { threads: ThreadSummary[] };
    expect(list.threads.find((t) => t.id === threadId)?.current_leaf_id).toBe(answer.id);
    // The old branch is still there, through its answer.
    const old = await branch(server, threadId, oldAnswer.id);
    expect(old.status).toBe(200);
    expect(shape(old.messages)).toEqual(["user:q1", "assistant:re:q1#0", "user:q2", "assistant:re:q2#1"]);

    // The next message continues from the new answer.
    const next = await turn(client, { content: "q3", thread_id: threadId });
    expect(userRow(next)?.parent_message_id).toBe(answer.id);
    expect(seen(server.provider.requests[3])).toEqual(["user:q1", "assistant:re:q1#2", "user:q3"]);
  });

  it("regenerates the last answer of a longer branch with the path before it", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const t1 = await turn(client, { content: "q1" });
    const threadId = threadOf(t1);
    const t2 = await turn(client, { content: "q2", thread_id: threadId });
    client.command("regenerate", { thread_id: threadId, message_id: userRow(t2)!.id });
    const frames = await client.collectUntil(isDone);
    expect(finalOf(frames)).toMatchObject({ content: "re:q2#2", parent_message_id: userRow(t2)!.id });
    expect(seen(server.provider.requests[2])).toEqual(["user:q1", "assistant:re:q1#0", "user:q2"]);
    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual(["user:q1", "assistant:re:q1#0", "user:q2", "assistant:re:q2#2"]);
    expect(messages[3]?.sibling_ids).toEqual([finalOf(t2).id, finalOf(frames).id]);
  });

  it("refuses a non-user message (bad_request), an unknown one (not_found) and one while a turn runs (busy), storing nothing", async () => {
    const held = gate();
    server = await startChatServer(answering({ hold: held.promise }));
    const client = await server.connect();
    const t1 = await turn(client, { content: "q1" });
    const threadId = threadOf(t1);
    const q1 = userRow(t1)!;
    const counts = async () => [
      await server!.countRows("messages"),
      await server!.countRows("turns"),
      server!.provider.calls,
    ];
    const before = await counts();

    client.command("regenerate", { thread_id: threadId, message_id: finalOf(t1).id }, "not-user");
    expect(await errorFor(client, "not-user")).toMatchObject({ code: "bad_request" });
    client.command("regenerate", { thread_id: threadId, message_id: "no-such-message" }, "unknown");
    expect(await errorFor(client, "unknown")).toMatchObject({ code: "not_found" });
    client.command("regenerate", { thread_id: "no-such-thread", message_id: q1.id }, "no-thread");
    expect(await errorFor(client, "no-thread")).toMatchObject({ code: "not_found" });
    expect(await counts()).toEqual(before);

    // While a turn runs: busy, and nothing stored for it.
    client.command("chat_message", { content: "hold", thread_id: threadId });
    await client.next("turn_started");
    // The held turn's model call counts once it starts (it then waits on the gate): a snapshot taken
    // before that would see it change under the refused regenerate.
    const calls = before[2] as number;
    await until(() => server?.provider.calls === calls + 1 || undefined, "the held turn's model call");
    const running = await counts();
    client.command("regenerate", { thread_id: threadId, message_id: q1.id }, "busy");
    expect(await errorFor(client, "busy")).toMatchObject({ code: "busy" });
    expect(await counts()).toEqual(running);
    held.open();
    const rest = await client.collectUntil(isDone);
    expect(rest.filter((f) => f.type === "turn_started")).toHaveLength(0);
    expect(shape(await rows(server, threadId))).toEqual([
      "user:q1",
      "assistant:re:q1#0",
      "user:hold",
      "assistant:re:hold#1",
    ]);
  });

  it("refuses another user's thread as not_found, storing nothing", async () => {
    server = await startChatServer(answering(), { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const a = await server.connect({ token: alice });
    const t1 = await turn(a, { content: "mine" });
    const threadId = threadOf(t1);
    const before = [await server.countRows("messages"), await server.countRows("turns")];
    const b = await server.connect({ token: bob });
    b.command("regenerate", { thread_id: threadId, message_id: userRow(t1)!.id }, "theirs");
    expect(await errorFor(b, "theirs")).toMatchObject({ code: "not_found" });
    expect([await server.countRows("messages"), await server.countRows("turns")]).toEqual(before);
    expect(server.provider.calls).toBe(1);
  });
});

describe("edit (chat_message with parent_message_id)", () => {
  it("after an earlier turn's final row: a sibling user message; the model sees only the new path", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const t1 = await turn(client, { content: "q1" });
    const threadId = threadOf(t1);
    const a1 = finalOf(t1);
    const t2 = await turn(client, { content: "q2", thread_id: threadId });
    await turn(client, { content: "q3", thread_id: threadId });
    const q2 = userRow(t2)!;

    const edited = await turn(client, {
      content: "q2 edited",
      thread_id: threadId,
      parent_message_id: a1.id,
    });
    const user = userRow(edited)!;
    expect(user).toMatchObject({ content: "q2 edited", parent_message_id: a1.id });
    expect(edited.find((f) => f.type === "turn_started")).toMatchObject({ user_message_id: user.id });
    expect(seen(server.provider.requests[3])).toEqual(["user:q1", "assistant:re:q1#0", "user:q2 edited"]);

    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual([
      "user:q1",
      "assistant:re:q1#0",
      "user:q2 edited",
      "assistant:re:q2 edited#3",
    ]);
    expectChained(messages);
    expect(messages[2]?.sibling_ids).toEqual([q2.id, user.id]);
    expect(messages.filter((m) => m.sibling_ids !== undefined)).toHaveLength(1);
  });

  it("with parent null: a new first message, the model sees nothing before it", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const t1 = await turn(client, { content: "first" });
    const threadId = threadOf(t1);
    await turn(client, { content: "second", thread_id: threadId });
    const edited = await turn(client, {
      content: "first edited",
      thread_id: threadId,
      parent_message_id: null,
    });
    const user = userRow(edited)!;
    expect(user.parent_message_id ?? null).toBeNull();
    expect(seen(server.provider.requests[2])).toEqual(["user:first edited"]);
    const messages = await rows(server, threadId);
    expect(shape(messages)).toEqual(["user:first edited", "assistant:re:first edited#2"]);
    expect(messages[0]?.sibling_ids).toEqual([userRow(t1)!.id, user.id]);
  });

  it("refuses a parent that is not a turn's end (a user row, a tool row) as bad_request and an unknown one as not_found, storing nothing", async () => {
    const tool = echoTool();
    server = await startChatServer(
      (request, call) =>
        call === 0
          ? { text: "using", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] }
          : { text: `re:${lastUser(request)}#${call}` },
      { extraTools: [tool] },
    );
    const client = await server.connect();
    const t1 = await turn(client, { content: "q1" });
    const threadId = threadOf(t1);
    const messages = await rows(server, threadId);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const [user, firstAssistant, toolRow] = messages;
    const before = [
      await server.countRows("messages"),
      await server.countRows("turns"),
      server.provider.calls,
    ];

    client.command(
      "chat_message",
      { content: "x", thread_id: threadId, parent_message_id: user!.id },
      "user",
    );
    expect(await errorFor(client, "user")).toMatchObject({ code: "bad_request" });
    client.command(
      "chat_message",
      { content: "x", thread_id: threadId, parent_message_id: toolRow!.id },
      "tool",
    );
    expect(await errorFor(client, "tool")).toMatchObject({ code: "bad_request" });
    // The assistant row that called the tool is not the turn's end either.
    client.command(
      "chat_message",
      { content: "x", thread_id: threadId, parent_message_id: firstAssistant!.id },
      "mid",
    );
    expect(await errorFor(client, "mid")).toMatchObject({ code: "bad_request" });
    client.command(
      "chat_message",
      { content: "x", thread_id: threadId, parent_message_id: "nope" },
      "unknown",
    );
    expect(await errorFor(client, "unknown")).toMatchObject({ code: "not_found" });

    expect([
      await server.countRows("messages"),
      await server.countRows("turns"),
      server.provider.calls,
    ]).toEqual(before);
    expect(await rows(server, threadId)).toEqual(messages);
    expect(
      client.received.some(
        (f) => f.type === "turn_started" && (f.seq ?? 0) > (t1.at(-1) as { seq: number }).seq,
      ),
    ).toBe(false);
  });
});

describe("choosing a branch", () => {
  /** q1 → a1 → q2 → a2, then an edit of q2: q1 → a1 → q2' → a2'. */
  async function twoBranches(s: ChatTestServer, client: TestClient) {
    const t1 = await turn(client, { content: "q1" });
    const threadId = threadOf(t1);
    const t2 = await turn(client, { content: "q2", thread_id: threadId });
    const t3 = await turn(client, { content: "q2'", thread_id: threadId, parent_message_id: finalOf(t1).id });
    void s;
    return {
      threadId,
      q1: userRow(t1)!,
      a1: finalOf(t1),
      q2: userRow(t2)!,
      a2: finalOf(t2),
      q2b: userRow(t3)!,
      a2b: finalOf(t3),
    };
  }

  it("GET ?leaf= gives the path through that message to its newest leaf; unknown is 404", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const b = await twoBranches(server, client);
    const old = await branch(server, b.threadId, b.q2.id);
    expect(old.status).toBe(200);
    expect(old.messages.map((m) => m.id)).toEqual([b.q1.id, b.a1.id, b.q2.id, b.a2.id]);
    expect(old.messages[2]?.sibling_ids).toEqual([b.q2.id, b.q2b.id]);
    // Through q1: down to its newest leaf (the edit's branch).
    const newest = await branch(server, b.threadId, b.q1.id);
    expect(newest.messages.map((m) => m.id)).toEqual([b.q1.id, b.a1.id, b.q2b.id, b.a2b.id]);
    const unknown = await branch(server, b.threadId, "no-such-message");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    // GET ?leaf= does not move the current leaf.
    expect((await rows(server, b.threadId)).map((m) => m.id)).toEqual([b.q1.id, b.a1.id, b.q2b.id, b.a2b.id]);
  });

  it("PUT current_leaf moves the current branch and the next chat_message continues from there; unknown is 404", async () => {
    server = await startChatServer(answering());
    const client = await server.connect();
    const b = await twoBranches(server, client);
    const moved = await putLeaf(server, b.threadId, b.q2.id);
    expect(moved).toEqual({ status: 200, body: { current_leaf_id: b.a2.id } });
    expect((await rows(server, b.threadId)).map((m) => m.id)).toEqual([b.q1.id, b.a1.id, b.q2.id, b.a2.id]);

    const next = await turn(client, { content: "q3", thread_id: b.threadId });
    expect(userRow(next)?.parent_message_id).toBe(b.a2.id);
    expect(seen(server.provider.requests.at(-1))).toEqual([
      "user:q1",
      "assistant:re:q1#0",
      "user:q2",
      "assistant:re:q2#1",
      "user:q3",
    ]);
    const messages = await rows(server, b.threadId);
    expect(shape(messages)).toEqual([
      "user:q1",
      "assistant:re:q1#0",
      "user:q2",
      "assistant:re:q2#1",
      "user:q3",
      "assistant:re:q3#3",
    ]);
    expectChained(messages);

    const unknown = await putLeaf(server, b.threadId, "no-such-message");
    expect(unknown.status).toBe(404);
    expect((await rows(server, b.threadId)).map((m) => m.id)).toEqual(messages.map((m) => m.id));
  });

  it("PUT current_leaf while a turn runs is 409 busy and moves nothing", async () => {
    const held = gate();
    server = await startChatServer(answering({ hold: held.promise }));
    const client = await server.connect();
    const b = await twoBranches(server, client);
    client.command("chat_message", { content: "hold", thread_id: b.threadId });
    await client.next("turn_started");
    const refused = await putLeaf(server, b.threadId, b.q2.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "busy" });
    held.open();
    await client.collectUntil(isDone);
    expect(shape(await rows(server, b.threadId))).toEqual([
      "user:q1",
      "assistant:re:q1#0",
      "user:q2'",
      "assistant:re:q2'#2",
      "user:hold",
      "assistant:re:hold#3",
    ]);
  });
});

/**
 * `POST /api/ag-ui` driven by the real `HttpAgent` from `@ag-ui/client`, in Node, against a real
 * server (token auth, SQLite file) whose provider is scripted.
 */
import { type IncomingMessage, request } from "node:http";
import { type BaseEvent, EventType, HttpAgent, type Message } from "@ag-ui/client";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { type ChatTestServer, gate, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { afterEach, describe, expect, it } from "vitest";
import { storedMessages } from "../chat/turn-helpers.js";
import { PLAIN_ANSWER_EVENTS } from "./ag-ui-expected.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const slow = gate();

/** Answers by the prompt of the level asking (a subtask's is its instructions) and the last tool result. */
function respond(request: ProviderRequest): ScriptedStep {
  const users = request.messages.filter((m) => m.role === "user");
  const prompt = String(users.at(-1)?.content ?? "");
  const last = request.messages.at(-1);
  const result = last?.role === "tool" ? last.content : undefined;
  if (prompt === "sub:A")
    return result === undefined
      ? { text: "A looks", toolCalls: [{ id: "echo_a", name: "echo", args: { text: "a" } }] }
      : { text: "A done" };
  if (prompt === "sub:B") return { text: ["B ", "done"] };
  switch (prompt) {
    case "hello":
      return { text: ["Hello", " there!"] };
    case "notes":
      return result === undefined
        ? { text: "Looking.", toolCalls: [{ id: "call_1", name: "echo", args: { text: "milk" } }] }
        : { text: `It says ${result}.` };
    case "split":
      return result === undefined
        ? {
            text: "Splitting.",
            toolCalls: [
              { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
              { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
            ],
          }
        : { text: "All done" };
    case "paint":
      return result === undefined
        ? { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which colour?" } }] }
        : { text: `Painting it ${result}.` };
    case "write":
      return result === undefined
        ? { toolCalls: [{ id: "w1", name: "write_note", args: { text: "x" } }] }
        : { text: `result: ${result}` };
    case "remember":
      return result === undefined
        ? {
            toolCalls: [
              {
                id: "sp_1",
                name: "scratchpad_update",
                args: { ops: [{ op: "add", kind: "task", title: "Buy milk" }] },
              },
            ],
          }
        : { text: "Noted." };
    case "fail":
      return { text: "Partial ", error: "upstream overloaded" };
    case "slow":
      return { text: "Part one", hold: slow.promise };
    default:
      return { text: "?" };
  }
}

async function start(): Promise<{ alice: string; bob: string }> {
  server = await startChatServer(respond, {
    auth: "token",
    extraTools: [echoTool(), echoTool("write_note", "workspace_write")],
    policy: { workspaceWrite: "ask" },
  });
  return { alice: await server.createToken("alice"), bob: await server.createToken("bob") };
}

function agentFor(token: string, threadId: string): HttpAgent {
  const s = server as ChatTestServer;
  return new HttpAgent({
    url: `${s.httpUrl}/api/ag-ui`,
    headers: { authorization: `Bearer ${token}` },
    threadId,
  });
}

let ids = 0;
/** Adds the user's message and runs: the events seen, and the run's error when it ended with RUN_ERROR. */
async function say(
  agent: HttpAgent,
  text: string | undefined,
  resume?: Parameters<HttpAgent["runAgent"]>[0],
) {
  if (text !== undefined) agent.addMessage({ id: `u${++ids}`, role: "user", content: text });
  const events: BaseEvent[] = [];
  let error: unknown;
  try {
    await agent.runAgent(resume ?? {}, { onEvent: ({ event }) => void events.push(event) });
  } catch (err) {
    error = err;
  }
  return { events, error };
}

const types = (events: BaseEvent[]) => events.map((e) => e.type);
const activities = (agent: HttpAgent) =>
  agent.messages.filter((m): m is Extract<Message, { role: "activity" }> => m.role === "activity");
const nativeThread = (events: BaseEvent[]) =>
  (events[0]?.metadata as { agentwire: { thread_id: string } }).agentwire.thread_id;

describe("AG-UI over POST /api/ag-ui with HttpAgent", () => {
  it("a plain answer streams as one text message; a second run continues the same thread", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-1");
    const { events, error } = await say(agent, "hello");
    expect(error).toBeUndefined();
    expect(types(events)).toEqual(PLAIN_ANSWER_EVENTS);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Hello there!" });
    const threadId = nativeThread(events);
    const again = await say(agent, "hello");
    expect(nativeThread(again.events)).toBe(threadId);
    const rows = await storedMessages(server as ChatTestServer, threadId, alice);
    expect(rows.map((r) => [r.role, r.content])).toEqual([
      ["user", "hello"],
      ["assistant", "Hello there!"],
      ["user", "hello"],
      ["assistant", "Hello there!"],
    ]);
  });

  it("a run whose history stops short of the stored branch edits there: the new message is a sibling of the edited one", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-edit");
    const first = await say(agent, "hello");
    const threadId = nativeThread(first.events);
    await say(agent, "notes");
    const before = await storedMessages(server as ChatTestServer, threadId, alice);
    const [, answer] = before;
    const edited = before.find((m) => m.role === "user" && m.content === "notes");
    expect(edited?.parent_message_id).toBe(before.at(1)?.id);

    // The user edits "notes": the client drops it and what followed, and sends the new text.
    const at = agent.messages.findIndex((m) => m.role === "user" && m.content === "notes");
    agent.setMessages(agent.messages.slice(0, at));
    const edit = await say(agent, "hello");
    expect(edit.error).toBeUndefined();
    expect(nativeThread(edit.events)).toBe(threadId);
    // The model saw the first turn and the new message only.
    const request = (server as ChatTestServer).provider.requests.at(-1);
    expect(request?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(request?.messages)).not.toContain("notes");
    const branch = await storedMessages(server as ChatTestServer, threadId, alice);
    expect(branch.map((r) => [r.role, r.content])).toEqual([
      ["user", "hello"],
      ["assistant", "Hello there!"],
      ["user", "hello"],
      ["assistant", "Hello there!"],
    ]);
    expect(branch[2]?.parent_message_id).toBe(answer?.id);
    expect(branch[2]?.sibling_ids).toEqual([edited?.id, branch[2]?.id]);

    // A client that sends the whole (edited) conversation again just continues it.
    await say(agent, "hello");
    const after = await storedMessages(server as ChatTestServer, threadId, alice);
    expect(after).toHaveLength(6);
    expect(after[4]?.parent_message_id).toBe(after[3]?.id);
    expect(after[4]?.sibling_ids).toBeUndefined();
  });

  it("tool calls: the call under its assistant message, then its result", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-tools");
    const { events, error } = await say(agent, "notes");
    expect(error).toBeUndefined();
    const call = agent.messages.find((m) => m.role === "assistant" && m.toolCalls?.length);
    expect(call).toMatchObject({
      content: "Looking.",
      toolCalls: [{ id: "call_1", function: { name: "echo", arguments: JSON.stringify({ text: "milk" }) } }],
    });
    expect(agent.messages.find((m) => m.role === "tool")).toMatchObject({
      toolCallId: "call_1",
      content: "echo:milk",
    });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "It says echo:milk." });
    expect(activities(agent).map((a) => a.content)).toEqual([
      expect.objectContaining({ id: "call_1", parent_id: null, depth: 0, name: "echo", status: "done" }),
    ]);
    expect(types(events).at(-1)).toBe(EventType.RUN_FINISHED);
  });

  it("parallel subtasks: a step each, and activities that nest with the right parent and depth", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-split");
    const { events, error } = await say(agent, "split");
    expect(error).toBeUndefined();
    const steps = events.filter(
      (e) => e.type === EventType.STEP_STARTED || e.type === EventType.STEP_FINISHED,
    );
    expect(steps.map((e) => `${e.type}:${e.stepName}`).sort()).toEqual([
      "STEP_FINISHED:subtask:sub_a",
      "STEP_FINISHED:subtask:sub_b",
      "STEP_STARTED:subtask:sub_a",
      "STEP_STARTED:subtask:sub_b",
    ]);
    const nodes = new Map(activities(agent).map((a) => [a.content.id as string, a.content]));
    expect(nodes.get("sub_a")).toMatchObject({
      parent_id: null,
      depth: 0,
      title: "Task A",
      status: "done",
      text: "A looksA done",
      text_parts: [],
    });
    expect(nodes.get("sub_b")).toMatchObject({
      parent_id: null,
      depth: 0,
      title: "Task B",
      status: "done",
      text: "B done",
    });
    expect(nodes.get("echo_a")).toMatchObject({ parent_id: "sub_a", depth: 1, name: "echo", status: "done" });
    // Only root text is the answer; the nested echo is a node, not a tool call of the conversation.
    expect(agent.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([
      "Splitting.",
      "All done",
    ]);
    expect(agent.messages.some((m) => m.role === "tool" && m.toolCallId === "echo_a")).toBe(false);
  });

  it("a question ends the run with an interrupt; the next run's resume answers it and the turn goes on", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-ask");
    const first = await say(agent, "paint");
    expect(first.error).toBeUndefined();
    expect(first.events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: {
        type: "interrupt",
        interrupts: [{ id: "question:ask_1", message: "Which colour?", toolCallId: "ask_1" }],
      },
    });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(["question:ask_1"]);
    const threadId = nativeThread(first.events);
    expect((await server?.repos.turns.latest("alice", threadId))?.status).toBe("waiting_user");

    const second = await say(agent, undefined, {
      resume: [{ interruptId: "question:ask_1", status: "resolved", payload: "blue" }],
    });
    expect(second.error).toBeUndefined();
    expect(agent.messages.find((m) => m.role === "tool")).toMatchObject({
      toolCallId: "ask_1",
      content: "blue",
    });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Painting it blue." });
    expect(second.events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: "success" },
    });
    expect((await server?.repos.turns.latest("alice", threadId))?.status).toBe("complete");
  });

  it("a dismissed question (resume cancelled) stops the waiting turn", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-dismiss");
    const first = await say(agent, "paint");
    const threadId = nativeThread(first.events);
    const second = await say(agent, undefined, {
      resume: [{ interruptId: "question:ask_1", status: "cancelled" }],
    });
    expect(second.error).toBeUndefined();
    expect(second.events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: "cancelled" },
    });
    const turn = await until(async () => {
      const latest = await server?.repos.turns.latest("alice", threadId);
      return latest?.status === "waiting_user" ? undefined : latest;
    }, "the waiting turn to end");
    expect(turn.status).toBe("stopped");
  });

  it("a denied approval: the interrupt names the tool; resume with deny and the model hears it declined", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-approve");
    const first = await say(agent, "write");
    const interrupt = agent.pendingInterrupts[0];
    expect(interrupt).toMatchObject({
      reason: "agentwire:tool_approval",
      metadata: { agentwire: { tool_name: "write_note" } },
    });
    expect(interrupt?.id).toMatch(/^approval:/);
    expect(first.events.at(-1)).toMatchObject({ outcome: { type: "interrupt" } });

    const second = await say(agent, undefined, {
      resume: [{ interruptId: interrupt?.id as string, status: "resolved", payload: { decision: "deny" } }],
    });
    expect(second.error).toBeUndefined();
    const result = agent.messages.find((m) => m.role === "tool" && m.toolCallId === "w1");
    expect(String(result?.content)).toMatch(/declined|denied/i);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(String(agent.messages.at(-1)?.content)).toMatch(/^result: /);
  });

  it("the scratchpad is the run's state: a delta as the agent writes it, the snapshot on the next run", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-pad");
    const first = await say(agent, "remember");
    expect(first.error).toBeUndefined();
    expect(first.events.some((e) => e.type === EventType.STATE_DELTA)).toBe(true);
    expect(agent.state).toMatchObject({
      scratchpad: [{ kind: "task", title: "Buy milk", status: "active" }],
    });
    agent.setState({});
    const second = await say(agent, "hello");
    expect(second.events[1]).toMatchObject({
      type: EventType.STATE_SNAPSHOT,
      snapshot: { scratchpad: [{ title: "Buy milk" }] },
    });
    expect(agent.state).toMatchObject({ scratchpad: [{ title: "Buy milk" }] });
  });

  it("a provider error ends the run with RUN_ERROR and its stable code", async () => {
    const { alice } = await start();
    const agent = agentFor(alice, "conv-fail");
    const { events } = await say(agent, "fail");
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_ERROR,
      code: "provider_error",
      message: "upstream overloaded",
    });
  });

  it("bad input is refused with a clear error and stores nothing", async () => {
    const { alice, bob } = await start();
    const s = server as ChatTestServer;
    const post = (token: string, body: unknown) =>
      s.fetch("/api/ag-ui", {
        method: "POST",
        token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const input = (threadId: string, extra: object = {}) => ({
      threadId,
      runId: "r1",
      messages: [{ id: "m1", role: "user", content: "hello" }],
      ...extra,
    });
    // Alice's thread, with a question waiting on it.
    const agent = agentFor(alice, "conv-private");
    const asked = await say(agent, "paint");
    const aliceThread = nativeThread(asked.events);
    const counts = async () => [
      await s.countRows("threads"),
      await s.countRows("turns"),
      await s.countRows("messages"),
    ];
    const before = await counts();

    const invalid = await post(alice, { threadId: 7, messages: "hi" });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(/threadId/),
    });

    const notUser = await post(
      alice,
      input("t2", { messages: [{ id: "m1", role: "assistant", content: "hi" }] }),
    );
    expect(notUser.status).toBe(400);

    const othersThread = await post(bob, input(`agentwire:${aliceThread}`));
    expect(othersThread.status).toBe(404);
    expect(await othersThread.json()).toMatchObject({ code: "not_found" });
    const othersQuestion = await post(
      bob,
      input(`agentwire:${aliceThread}`, {
        resume: [{ interruptId: "question:ask_1", status: "resolved", payload: "red" }],
      }),
    );
    expect(othersQuestion.status).toBe(404);

    const huge = await post(
      alice,
      input("t3", { messages: [{ id: "m1", role: "user", content: "x".repeat(1_100_000) }] }),
    );
    expect(huge.status).toBe(413);

    const unauthenticated = await s.fetch("/api/ag-ui", {
      method: "POST",
      body: JSON.stringify(input("t4")),
    });
    expect(unauthenticated.status).toBe(401);

    expect(await counts()).toEqual(before);
    expect((await s.repos.turns.latest("alice", aliceThread))?.status).toBe("waiting_user");
  });

  it("a client that disconnects mid-run leaves the turn running to completion", async () => {
    const { alice } = await start();
    const s = server as ChatTestServer;
    // node:http with no agent: the socket is this request's alone, and destroying it is the disconnect.
    const body = JSON.stringify({
      threadId: "conv-slow",
      runId: "r1",
      messages: [{ id: "m1", role: "user", content: "slow" }],
    });
    const req = request(`${s.httpUrl}/api/ag-ui`, {
      method: "POST",
      agent: false,
      headers: {
        authorization: `Bearer ${alice}`,
        "content-type": "application/json",
        accept: "text/event-stream",
      },
    });
    req.end(body);
    const res = await new Promise<IncomingMessage>((resolve) => req.once("response", resolve));
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    let seen = "";
    await new Promise<void>((resolve) => {
      res.on("data", (chunk: Buffer) => {
        seen += chunk.toString("utf8");
        if (seen.includes("Part one")) resolve();
      });
    });
    const started = JSON.parse(seen.split("\n\n")[0]?.replace(/^data: /, "") ?? "") as BaseEvent;
    const threadId = nativeThread([started]);
    req.destroy();
    // The server has seen the client go (its edge connection is gone) while the turn still runs.
    await until(() => s.app.agentwireConnections.forUser("alice").length === 0, "the edge to close");
    expect((await s.repos.turns.latest("alice", threadId))?.status).toBe("running");
    // The running turn cannot be rejoined over AG-UI: a new run on the thread is busy, and stores nothing.
    const again = await s.fetch("/api/ag-ui", {
      method: "POST",
      token: alice,
      headers: { "content-type": "application/json" },
      body,
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: "busy" });
    slow.open();
    const turn = await until(async () => {
      const latest = await s.repos.turns.latest("alice", threadId);
      return latest?.status === "running" ? undefined : latest;
    }, "the turn to end");
    expect(turn.status).toBe("complete");
    const rows = await storedMessages(s, threadId, alice);
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant"]);
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "Part one", status: "complete" });
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askUserTool, type ProviderRequest, runSubtaskTool } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { openTestStorage, type TestClient } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AdmissionQueue, AgentwireMetrics } from "../../src/index.js";

let server: ChatTestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The text of the request's last user message: which turn the provider is answering. */
const userText = (r: ProviderRequest) => {
  const last = r.messages.findLast((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : "";
};

/**
 * A provider whose answer to "hold" waits for `held` (it keeps the one live slot); every other
 * message is answered at once with its own text.
 */
function holdingProvider(held: Promise<void>) {
  return (request: ProviderRequest): ScriptedStep => {
    const text = userText(request);
    return text === "hold" ? { text: "held", gate: held } : { text: `re: ${text}` };
  };
}

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;

/** Sends a new-thread chat_message and returns its thread id (from the `thread` frame echoing the request). */
async function newTurn(client: TestClient, content: string): Promise<string> {
  const requestId = `r-${content}`;
  client.command("chat_message", { content }, requestId);
  const thread = await client.next("thread", { where: (f) => f.request_id === requestId });
  if (!thread.thread_id) throw new Error("a thread frame without thread_id");
  return thread.thread_id;
}

/** Waits for the thread's `agent_state` of `state`. */
function stateOf(client: TestClient, threadId: string, state: Frame<"agent_state">["state"]) {
  return client.next("agent_state", { where: (f) => f.thread_id === threadId && f.state === state });
}

/** Waits for the thread's final `chunk {done:true}`. */
function doneOf(client: TestClient, threadId: string) {
  return client.next("chunk", { where: (f) => f.thread_id === threadId && f.done === true });
}

/** Every frame the client got for a thread, in order. */
function framesOf(client: TestClient, threadId: string): ServerFrame[] {
  return client.received.filter((f) => "thread_id" in f && f.thread_id === threadId);
}

const kinds = (frames: ServerFrame[]) =>
  frames.map((f) => (f.type === "agent_state" ? `agent_state ${f.state}` : f.type));

describe("admission of new turns under load", () => {
  it("admits a turn at once when there is room: no queued frame, nothing added", async () => {
    const admission = new AdmissionQueue({ maxLiveTurns: 1 });
    server = await startChatServer([{ text: "hi" }], { admission });
    const client = await server.connect();
    const threadId = await newTurn(client, "hello");
    await doneOf(client, threadId);
    const frames = framesOf(client, threadId);
    expect(kinds(frames).slice(0, 4)).toEqual(["thread", "message", "turn_started", "agent_state thinking"]);
    expect(frames.some((f) => f.type === "agent_state" && f.state === "queued")).toBe(false);
    expectWellFormedTurn(frames);
    await vi.waitFor(() => expect(admission.live).toBe(0));
  });

  it("a full queue answers overloaded and stores nothing; the queued turn runs once a slot frees", async () => {
    const held = gate();
    const admission = new AdmissionQueue({ maxLiveTurns: 1, queueMax: 1, queueMaxPerUser: 1 });
    const metrics = new AgentwireMetrics({
      openSockets: () => 1,
      turns: () => ({ running: 0, suspended: 0 }),
      admission: () => ({ depth: admission.depth, live: admission.live }),
    });
    admission.observer = metrics;
    server = await startChatServer(holdingProvider(held.promise), { admission });
    const client = await server.connect();
    const running = await newTurn(client, "hold");
    await stateOf(client, running, "thinking");
    const queued = await newTurn(client, "waits");
    await stateOf(client, queued, "queued");
    expect([admission.live, admission.depth]).toEqual([1, 1]);
    const rows = async () =>
      Promise.all(["threads", "turns", "messages"].map((t) => server?.countRows(t) as Promise<number>));
    const before = await rows();
    expect(before).toEqual([2, 2, 2]);

    client.command("chat_message", { content: "refused" }, "r-refused");
    const refusal = await client.next("error", { where: (f) => f.request_id === "r-refused" });
    expect(refusal.code).toBe("overloaded");
    // Nothing stored, nothing sent for it but the error.
    expect(await rows()).toEqual(before);
    expect(
      client.received.filter((f) => "request_id" in f && f.request_id === "r-refused").map((f) => f.type),
    ).toEqual(["error"]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('agentwire_admission_rejected_total{reason="queue_full"} 1');
    expect(text).toContain("agentwire_admission_queue_depth 1");
    expect(text).toContain("agentwire_live_turns 1");

    held.open();
    await doneOf(client, running);
    await doneOf(client, queued);
    const frames = framesOf(client, queued);
    expect(kinds(frames).slice(0, 5)).toEqual([
      "thread",
      "message",
      "turn_started",
      "agent_state queued",
      "agent_state thinking",
    ]);
    expectWellFormedTurn(frames);
    expect(frames.filter((f): f is Frame<"message"> => f.type === "message").at(-1)?.message).toMatchObject({
      role: "assistant",
      content: "re: waits",
      status: "complete",
    });
    expect(server.provider.requests.map(userText)).toEqual(["hold", "waits"]);
    await vi.waitFor(() => expect([admission.live, admission.depth]).toEqual([0, 0]));
    const after = await metrics.registry.metrics();
    // Two admitted (one at once, one after its wait); the refused one is not a wait.
    expect(after).toContain("agentwire_admission_wait_seconds_count 2");
  });

  it("a queued turn that is stopped never starts: stored stopped through the normal ending", async () => {
    const held = gate();
    const admission = new AdmissionQueue({ maxLiveTurns: 1 });
    // The threads whose turn built its toolbelt: the first of a turn's expensive steps.
    const built: string[] = [];
    server = await startChatServer(holdingProvider(held.promise), {
      admission,
      serverTools: (scope) => {
        built.push(scope.threadId);
        return [askUserTool, runSubtaskTool];
      },
    });
    const client = await server.connect();
    const running = await newTurn(client, "hold");
    await stateOf(client, running, "thinking");
    const queued = await newTurn(client, "never runs");
    await stateOf(client, queued, "queued");

    client.command("stop", { thread_id: queued });
    await doneOf(client, queued);
    const frames = framesOf(client, queued);
    expect(kinds(frames)).toEqual([
      "thread",
      "message",
      "turn_started",
      "agent_state queued",
      "message",
      "generation_stopped",
      "usage",
      "agent_state idle",
      "chunk",
    ]);
    expectWellFormedTurn(frames);
    expect((frames[4] as Frame<"message">).message).toMatchObject({
      role: "assistant",
      content: "",
      status: "stopped",
    });
    expect((await server.repos.turns.latest("local", queued))?.status).toBe("stopped");
    expect(admission.depth).toBe(0);

    held.open();
    await doneOf(client, running);
    await vi.waitFor(() => expect(admission.live).toBe(0));
    // Only the running turn ever reached the provider, or even built its tools.
    expect(server.provider.requests.map(userText)).toEqual(["hold"]);
    expect(built).toEqual([running]);
  });

  it("a queued turn whose socket dropped still runs, and its frames replay on resume_chat", async () => {
    const held = gate();
    const admission = new AdmissionQueue({ maxLiveTurns: 1 });
    server = await startChatServer(holdingProvider(held.promise), { admission });
    const holder = await server.connect();
    const running = await newTurn(holder, "hold");
    await stateOf(holder, running, "thinking");
    const leaving = await server.connect();
    const queued = await newTurn(leaving, "while away");
    await stateOf(leaving, queued, "queued");
    const seenBefore = framesOf(leaving, queued);
    await leaving.close();

    held.open();
    await doneOf(holder, running);
    const repos = server.repos;
    await vi.waitFor(async () =>
      expect((await repos.turns.latest("local", queued))?.status).toBe("complete"),
    );

    const back = await server.connect();
    back.command("resume_chat", { thread_id: queued, last_seq: 0 });
    const replay = await back.collectUntil((f) => f.type === "chat_resumed");
    const resumed = replay.pop();
    expect(resumed).toMatchObject({ type: "chat_resumed", status: "finished", replayed: replay.length });
    expectWellFormedTurn(replay);
    expect(replay.slice(0, seenBefore.length)).toEqual(seenBefore);
    expect(kinds(replay).slice(3, 5)).toEqual(["agent_state queued", "agent_state thinking"]);
    expect(replay.filter((f): f is Frame<"message"> => f.type === "message").at(-1)?.message).toMatchObject({
      role: "assistant",
      content: "re: while away",
      status: "complete",
    });
  });

  it("serves users in turn: another user's one turn is not delayed by a user's many", async () => {
    const held = gate();
    const admission = new AdmissionQueue({ maxLiveTurns: 1 });
    server = await startChatServer(holdingProvider(held.promise), { admission, auth: "token" });
    const alice = await server.connect({ token: await server.createToken("alice") });
    const bob = await server.connect({ token: await server.createToken("bob") });
    const running = await newTurn(alice, "hold");
    await stateOf(alice, running, "thinking");
    const threads: [TestClient, string][] = [];
    for (const content of ["alice 1", "alice 2", "alice 3"]) {
      const threadId = await newTurn(alice, content);
      await stateOf(alice, threadId, "queued");
      threads.push([alice, threadId]);
    }
    const bobs = await newTurn(bob, "bob 1");
    await stateOf(bob, bobs, "queued");
    threads.push([bob, bobs]);
    expect(admission.depth).toBe(4);

    held.open();
    for (const [client, threadId] of threads) await doneOf(client, threadId);
    expect(server.provider.requests.map(userText)).toEqual([
      "hold",
      "alice 1",
      "bob 1",
      "alice 2",
      "alice 3",
    ]);
  });

  it("while the event loop lags, new turns wait even with free slots; they start when it recovers", async () => {
    const admission = new AdmissionQueue({ maxLiveTurns: 100, maxLagMs: 40 });
    server = await startChatServer([{ text: "after the lag" }], { admission });
    admission.tick(120);
    const client = await server.connect();
    const threadId = await newTurn(client, "under load");
    await stateOf(client, threadId, "queued");
    expect(server.provider.calls).toBe(0);
    admission.tick(3);
    await doneOf(client, threadId);
    expect(kinds(framesOf(client, threadId)).slice(3, 5)).toEqual([
      "agent_state queued",
      "agent_state thinking",
    ]);
  });

  it("an answer resumes a waiting turn at once, even when every slot is taken (resumptions never queue)", async () => {
    const held = gate();
    const admission = new AdmissionQueue({ maxLiveTurns: 1 });
    server = await startChatServer(
      (request) => {
        const text = userText(request);
        if (text === "hold") return { text: "held", gate: held.promise };
        const last = request.messages.at(-1);
        return last?.role === "tool"
          ? { text: `you said ${last.content}` }
          : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which?" } }] };
      },
      { admission },
    );
    const client = await server.connect();
    const asking = await newTurn(client, "ask me");
    await stateOf(client, asking, "waiting_on_user");
    // Waiting costs nothing: its slot is free for the next turn.
    await vi.waitFor(() => expect(admission.live).toBe(0));
    const running = await newTurn(client, "hold");
    await stateOf(client, running, "thinking");

    client.command("answer", { thread_id: asking, tool_call_id: "ask_1", answer: "this one" });
    await doneOf(client, asking);
    const frames = framesOf(client, asking);
    expect(frames.some((f) => f.type === "agent_state" && f.state === "queued")).toBe(false);
    expect(frames.filter((f): f is Frame<"message"> => f.type === "message").at(-1)?.message).toMatchObject({
      content: "you said this one",
      status: "complete",
    });
    held.open();
    await doneOf(client, running);
    await vi.waitFor(() => expect(admission.live).toBe(0));
  });

  it("plan_decision starts its turn through admission: refused with overloaded, the draft still waits", async () => {
    const held = gate();
    const plan = {
      goal: "a note",
      stages: [
        { id: "s", name: "Write", mode: "sequence", steps: [{ id: "w", title: "Write", instructions: "w" }] },
      ],
    };
    const admission = new AdmissionQueue({ maxLiveTurns: 1, queueMax: 0 });
    server = await startChatServer(
      (request): ScriptedStep => {
        if (request.systemPrompt.startsWith("You are a planner"))
          return { text: `\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`` };
        const last = request.messages.at(-1);
        if (last?.role === "tool") return { text: "planned" };
        const text = userText(request);
        if (text === "hold") return { text: "held", gate: held.promise };
        if (text === "plan it")
          return {
            toolCalls: [
              { id: "cp1", name: "create_plan", args: { objective: "a note", execution_mode: "draft_only" } },
            ],
          };
        return { text: "did it" };
      },
      { admission },
    );
    const client = await server.connect();
    const threadId = await newTurn(client, "plan it");
    const ready = await client.next("plan_ready_for_review", { where: (f) => f.thread_id === threadId });
    await doneOf(client, threadId);
    const running = await newTurn(client, "hold");
    await stateOf(client, running, "thinking");
    const messagesBefore = await server.countRows("messages");

    const decision = { thread_id: threadId, plan_id: ready.plan.id, decision: "approve" };
    client.command("plan_decision", decision, "r-refused");
    expect(await client.next("error", { where: (f) => f.request_id === "r-refused" })).toMatchObject({
      code: "overloaded",
    });
    expect((await server.repos.plans.get("local", ready.plan.id))?.status).toBe("pending_review");
    expect(await server.countRows("messages")).toBe(messagesBefore);

    held.open();
    await doneOf(client, running);
    await vi.waitFor(() => expect(admission.live).toBe(0));
    client.command("plan_decision", decision, "r-ok");
    await doneOf(client, threadId);
    expect((await server.repos.plans.get("local", ready.plan.id))?.status).toBe("complete");
  });

  it("server shutdown ends a queued turn like a running one (interrupted), without hanging", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-admission-"));
    const dbPath = join(dir, "a.db");
    const admission = new AdmissionQueue({ maxLiveTurns: 1 });
    server = await startChatServer(
      (request) => (userText(request) === "hold" ? { text: "half", hold: "until-aborted" } : { text: "no" }),
      { admission, dbPath },
    );
    const client = await server.connect();
    const running = await newTurn(client, "hold");
    await client.next("chunk", { where: (f) => f.thread_id === running && f.content === "half" });
    const queued = await newTurn(client, "queued at shutdown");
    await stateOf(client, queued, "queued");
    await server.close();
    server = undefined;
    expect((await client.closed).code).toBe(1012);

    const storage = await openTestStorage(dbPath);
    try {
      const { repos } = storage;
      expect((await repos.turns.latest("local", running))?.status).toBe("interrupted");
      expect((await repos.turns.latest("local", queued))?.status).toBe("interrupted");
      expect((await repos.messages.list("local", queued)).at(-1)).toMatchObject({
        role: "assistant",
        content: "",
        status: "interrupted",
      });
    } finally {
      await storage.close();
    }
  });
});

/**
 * Issue 39, spend limits through the real socket (SQLite, and Postgres in the postgres project): a
 * start refused `spend_limit` with nothing stored (chat_message, regenerate, continue_turn, a queued
 * message's start), a running turn crossing the limit mid-loop, the 80 % warning on `usage`, unpriced
 * models, and a per-user limit from TOOL_POLICY_FILE. The scripted provider answers as gpt-4o-mini
 * ($0.15 per million input tokens), so each call's cost is known.
 */
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { type ChatTestServer, gate, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import type { TestClient } from "@agentwire-chat/testkit/harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { until } from "@agentwire-chat/testkit/until";
import { nextUtcMidnight, ToolPolicies } from "@agentwire-chat/websocket";
import { afterEach, describe, expect, it } from "vitest";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MODEL = "gpt-4o-mini";
/** Millions of tokens make a known cost: the token budget must not stop the turn first. */
const limits = { MAX_TOTAL_TOKENS: 1_000_000_000 };
/** Input tokens that cost `usd` on gpt-4o-mini. */
const costing = (usd: number) => ({ inputTokens: Math.round((usd / 0.15) * 1_000_000), outputTokens: 0 });

/** Runs one turn to its `done`; its frames. */
async function turn(
  client: TestClient,
  data: Record<string, unknown>,
  requestId?: string,
): Promise<ServerFrame[]> {
  client.command("chat_message", { model: MODEL, ...data }, requestId);
  return client.collectUntil(isDone);
}

const usageOf = (frames: ServerFrame[]) =>
  frames.find((f): f is Extract<ServerFrame, { type: "usage" }> => f.type === "usage");
const threadOf = (frames: ServerFrame[]) =>
  (frames.find((f) => f.type === "thread") as { thread_id: string }).thread_id;

/** Rows that a refused start must not have added. */
async function stored(s: ChatTestServer) {
  return {
    threads: await s.countRows("threads"),
    messages: await s.countRows("messages"),
    turns: await s.countRows("turns"),
    calls: await s.countRows("llm_calls"),
  };
}

/** Sends a command and takes the `error` it is answered with. */
async function refusal(client: TestClient, command: string, data: unknown, requestId: string) {
  client.command(command, data, requestId);
  return client.next("error", { where: (f) => f.request_id === requestId });
}

describe("spend limits", () => {
  it("a turn that crosses the daily limit ends budget_exceeded; then chat_message, regenerate and continue_turn are refused spend_limit with nothing stored", async () => {
    server = await startChatServer([{ text: "pricey", usage: costing(0.3) }], {
      limits,
      spend: { userDailyUsd: 0.2, unpriced: "allow" },
    });
    const client = await server.connect();
    const first = await turn(client, { content: "hello" });
    expect(first.find((f) => f.type === "budget_exceeded")).toMatchObject({
      reason: "spend_limit",
      limit: 0.2,
    });
    const threadId = threadOf(first);
    const latest = await server.repos.turns.latest("local", threadId);
    expect(latest?.status).toBe("budget_exceeded");
    const before = await stored(server);
    const resets = new Date(nextUtcMidnight(Date.now())).toISOString().replace(".000Z", "Z");
    const message = `daily spend limit of $0.20 reached ($0.30 spent); resets at ${resets}`;

    const fresh = await refusal(client, "chat_message", { content: "again", model: MODEL }, "r1");
    expect(fresh).toMatchObject({ code: "spend_limit", message });
    const same = await refusal(client, "chat_message", { content: "more", thread_id: threadId }, "r2");
    expect(same).toMatchObject({ code: "spend_limit", message });
    const [userRow] = await server.repos.messages.list("local", threadId);
    const regen = await refusal(client, "regenerate", { thread_id: threadId, message_id: userRow?.id }, "r3");
    expect(regen).toMatchObject({ code: "spend_limit", message });
    const extend = await refusal(client, "continue_turn", { thread_id: threadId }, "r4");
    expect(extend).toMatchObject({ code: "spend_limit", message });

    expect(await stored(server)).toEqual(before);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("budget_exceeded");
    expect(server.provider.calls).toBe(1);
  });

  it("a running turn crossing the limit mid-loop stops at its next step: budget_exceeded spend_limit, the warning on usage", async () => {
    server = await startChatServer(
      [
        { toolCalls: [{ id: "e1", name: "echo", args: { text: "1" } }], usage: costing(0.15) },
        { toolCalls: [{ id: "e2", name: "echo", args: { text: "2" } }], usage: costing(0.3) },
        { text: "never asked" },
      ],
      { limits, spend: { userDailyUsd: 0.4, unpriced: "allow" }, extraTools: [echoTool("echo")] },
    );
    const client = await server.connect();
    const frames = await turn(client, { content: "loop" });
    const breach = frames.find((f) => f.type === "budget_exceeded") as { limit: number; observed: number };
    expect(breach).toMatchObject({ reason: "spend_limit", limit: 0.4 });
    expect(breach.observed).toBeCloseTo(0.45, 6);
    expect(server.provider.calls).toBe(2);
    const warning = usageOf(frames)?.spend_warning;
    expect(warning).toMatchObject({
      limit: "user_daily",
      limit_usd: 0.4,
      resets_at: nextUtcMidnight(Date.now()),
    });
    expect(warning?.spent_usd).toBeCloseTo(0.45, 6);
    expect((await server.repos.turns.latest("local", threadOf(frames)))?.status).toBe("budget_exceeded");
  });

  it("warns on usage at 80 % of the thread limit and not below", async () => {
    server = await startChatServer(
      [
        { text: "one", usage: costing(0.15) },
        { text: "two", usage: costing(0.75) },
      ],
      { limits, spend: { threadUsd: 1, unpriced: "allow" } },
    );
    const client = await server.connect();
    const first = await turn(client, { content: "a" });
    expect(usageOf(first)).not.toHaveProperty("spend_warning");
    const second = await turn(client, { content: "b", thread_id: threadOf(first) });
    expect(second.some((f) => f.type === "budget_exceeded")).toBe(false);
    const warning = usageOf(second)?.spend_warning;
    expect(warning).toMatchObject({ limit: "thread", limit_usd: 1, resets_at: null });
    expect(warning?.spent_usd).toBeCloseTo(0.9, 6);
  });

  it("an unpriced model is refused with SPEND_LIMIT_UNPRICED=refuse (nothing stored) and runs at $0 with allow", async () => {
    server = await startChatServer([{ text: "free", usage: { inputTokens: 10, outputTokens: 5 } }], {
      limits,
      spend: { userDailyUsd: 1, unpriced: "refuse" },
    });
    const client = await server.connect();
    const before = await stored(server);
    const refused = await refusal(client, "chat_message", { content: "hi", model: "scripted-1" }, "u1");
    expect(refused.code).toBe("spend_limit");
    expect(refused.message).toContain('model "scripted-1" has no known price');
    expect(await stored(server)).toEqual(before);
    await server.close();

    server = await startChatServer([{ text: "free", usage: { inputTokens: 10, outputTokens: 5 } }], {
      limits,
      spend: { userDailyUsd: 1, unpriced: "allow" },
    });
    const other = await server.connect();
    const frames = await turn(other, { content: "hi", model: "scripted-1" });
    expect(frames.some((f) => f.type === "error" || f.type === "budget_exceeded")).toBe(false);
    expect(frames.find((f) => f.type === "message" && f.message.role === "assistant")).toMatchObject({
      message: { content: "free" },
    });
  });

  it("a queued message refused at its start is dropped, its error sent to the thread's watchers, nothing stored", async () => {
    const held = gate();
    server = await startChatServer(
      (request: ProviderRequest): ScriptedStep => ({
        text: "first answer",
        usage: costing(0.3),
        ...(lastUser(request) === "first" && { gate: held.promise }),
      }),
      { limits, spend: { threadUsd: 0.2, unpriced: "allow" } },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "first", model: MODEL });
    const threadId = ((await client.next("thread")) as { thread_id: string }).thread_id;
    await client.next("turn_started");
    client.command(
      "chat_message",
      { content: "second", model: MODEL, thread_id: threadId, on_busy: "queue" },
      "q1",
    );
    await client.next("message_queued", { where: (f) => f.request_id === "q1" });
    await until(() => server?.provider.calls === 1 || undefined, "the held turn's model call");
    held.open();
    const error = await client.next("error", { where: (f) => f.request_id === "q1" });
    expect(error).toMatchObject({ code: "spend_limit", thread_id: threadId });
    expect(error.message).toBe(
      "thread spend limit of $0.20 reached ($0.30 spent); a thread's limit does not reset",
    );
    expect(await server.repos.queuedMessages.count("local", threadId)).toBe(0);
    const rows = await server.repos.messages.list("local", threadId);
    expect(rows.map((r) => r.content)).toEqual(["first", "first answer"]);
    expect(await server.countRows("turns")).toBe(1);
    expect(server.provider.calls).toBe(1);
  });

  it("an answer to a waiting turn is never refused; the resumed turn runs under the limit as it stands and stops at its next call", async () => {
    server = await startChatServer(
      (request: ProviderRequest): ScriptedStep => {
        const asked = lastUser(request) === "ask";
        const answered = request.messages.some((m) => m.role === "tool");
        if (asked && !answered)
          return {
            toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Which?" } }],
            usage: costing(0.1),
          };
        if (asked)
          return { toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }], usage: costing(0.05) };
        return { text: "spent elsewhere", usage: costing(0.15) };
      },
      { limits, spend: { userDailyUsd: 0.2, unpriced: "allow" }, extraTools: [echoTool("echo")] },
    );
    const client = await server.connect();
    client.command("chat_message", { content: "ask", model: MODEL });
    const question = await client.next("question");
    const asking = ((await server.repos.threads.list("local"))[0] as { id: string }).id;
    // Another thread's turn spends past the daily limit meanwhile.
    const other = await server.connect();
    const elsewhere = await turn(other, { content: "other" });
    expect(elsewhere.find((f) => f.type === "budget_exceeded")).toMatchObject({ reason: "spend_limit" });

    client.command(
      "answer",
      { thread_id: asking, tool_call_id: question.tool_call_id, answer: "this" },
      "ans",
    );
    const frames = await client.collectUntil(isDone);
    expect(frames.some((f) => f.type === "error")).toBe(false);
    const breach = frames.find((f) => f.type === "budget_exceeded") as { observed: number };
    expect(breach).toMatchObject({ reason: "spend_limit", limit: 0.2 });
    expect(breach.observed).toBeCloseTo(0.3, 6);
    // The resumed turn made one call (the one after the answer) and ran no tool of it.
    expect(server.provider.calls).toBe(3);
    expect(frames.some((f) => f.type === "tool_call_update" && f.name === "echo")).toBe(false);
  });

  it("the AG-UI edge starts through the same check: refused spend_limit (HTTP 402) with nothing stored", async () => {
    server = await startChatServer([{ text: "free" }], {
      auth: "token",
      spend: { userDailyUsd: 1, unpriced: "refuse" },
    });
    const token = await server.createToken("alice");
    const before = await stored(server);
    const response = await server.fetch("/api/ag-ui", {
      method: "POST",
      token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "t1",
        runId: "r1",
        messages: [{ id: "m1", role: "user", content: "hi" }],
      }),
    });
    const body = await response.text();
    expect({ status: response.status, body }).toMatchObject({ status: 402 });
    expect(JSON.parse(body)).toMatchObject({
      code: "spend_limit",
      message: expect.stringContaining("no known price"),
    });
    expect(await stored(server)).toEqual(before);
    expect(server.provider.calls).toBe(0);
  });

  it("TOOL_POLICY_FILE limits per user and group: the user's own beats the group's, which beats the environment's", async () => {
    const policies = new ToolPolicies(
      {},
      {
        groups: { cheap: { members: ["alice", "bob"], spend_limit_daily_usd: 0.1 } },
        users: { alice: { spend_limit_daily_usd: 5 } },
      },
    );
    server = await startChatServer((): ScriptedStep => ({ text: "ok", usage: costing(0.15) }), {
      auth: "token",
      policies,
      limits,
      spend: { userDailyUsd: 0.01, unpriced: "allow" },
    });
    const s = server;
    const alice = await s.connect({ token: await s.createToken("alice") });
    const bob = await s.connect({ token: await s.createToken("bob") });
    const dave = await s.connect({ token: await s.createToken("dave") });
    // alice: her own $5 — two turns run and no warning.
    for (const content of ["a1", "a2"]) {
      const frames = await turn(alice, { content });
      expect(frames.some((f) => f.type === "budget_exceeded")).toBe(false);
      expect(usageOf(frames)).not.toHaveProperty("spend_warning");
    }
    // bob: the group's $0.10 — his first turn crosses it, his next is refused.
    const bobFirst = await turn(bob, { content: "b1" });
    expect(bobFirst.find((f) => f.type === "budget_exceeded")).toMatchObject({
      reason: "spend_limit",
      limit: 0.1,
    });
    const bobNext = await refusal(bob, "chat_message", { content: "b2", model: MODEL }, "b2");
    expect(bobNext.message).toMatch(/^daily spend limit of \$0\.10 reached \(\$0\.15 spent\)/);
    // dave: the environment's $0.01.
    await turn(dave, { content: "d1" });
    const daveNext = await refusal(dave, "chat_message", { content: "d2", model: MODEL }, "d2");
    expect(daveNext.message).toMatch(/^daily spend limit of \$0\.01 reached/);
  });
});

function lastUser(request: ProviderRequest): string {
  const user = request.messages.findLast((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : "";
}

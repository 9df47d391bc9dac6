import { StoredPlan, ThreadUsage } from "@agentwire-chat/protocol";
import { type ChatTestServer, isDone, startChatServer } from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { threadOf } from "./chat/turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const plan = {
  id: "p1",
  goal: "Compare two regions",
  stages: [
    {
      id: "gather",
      name: "Gather",
      mode: "parallel" as const,
      steps: [
        { id: "eu", title: "EU prices", instructions: "Look up EU prices" },
        { id: "us", title: "US prices", instructions: "Look up US prices", tools: ["web_fetch"] },
      ],
    },
    {
      id: "write",
      name: "Write",
      mode: "sequence" as const,
      steps: [{ id: "report", title: "Report", instructions: "Compare", inputs: ["eu", "us"] }],
    },
  ],
};

describe("GET /api/threads/:id/plans", () => {
  it("lists the thread's plans with status, mode, stages and steps; another user's thread is 404", async () => {
    server = await startChatServer([], { auth: "token" });
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const thread = await server.repos.threads.create("alice", "Plans");
    const other = await server.repos.threads.create("alice", "Other");
    await server.repos.plans.create(
      "alice",
      {
        id: "p1",
        threadId: thread.id,
        toolCallId: "call_plan",
        executionMode: "draft_only",
        plan,
        chatContext: { kind: "thread" },
        status: "pending_review",
      },
      1_000,
    );
    await server.repos.plans.create(
      "alice",
      {
        id: "p2",
        threadId: thread.id,
        toolCallId: "call_plan_2",
        executionMode: "auto_execute",
        plan: { ...plan, id: "p2", goal: "Again" },
        chatContext: { kind: "thread" },
        status: "running",
      },
      2_000,
    );
    await server.repos.plans.setStatus("alice", "p2", "complete", 3_000);
    await server.repos.plans.create("alice", {
      id: "p3",
      threadId: other.id,
      toolCallId: "call_other",
      executionMode: "auto_execute",
      plan: { ...plan, id: "p3" },
      chatContext: { kind: "thread" },
      status: "running",
    });

    const res = await server.fetch(`/api/threads/${thread.id}/plans`, { token: alice });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { plans: unknown[] };
    const plans = body.plans.map((p) => StoredPlan.parse(p));
    expect(plans.map((p) => [p.id, p.status, p.execution_mode, p.tool_call_id])).toEqual([
      ["p1", "pending_review", "draft_only", "call_plan"],
      ["p2", "complete", "auto_execute", "call_plan_2"],
    ]);
    expect(plans[0]?.plan).toEqual(plan);
    expect(plans[1]?.updated_at).toBe(new Date(3_000).toISOString());
    // The context the plan was made in stays on the server.
    expect(body.plans[0]).not.toHaveProperty("chat_context");

    const theirs = await server.fetch(`/api/threads/${thread.id}/plans`, { token: bob });
    const missing = await server.fetch("/api/threads/nope/plans", { token: bob });
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
    expect(
      await (
        await server.fetch(`/api/threads/${(await server.repos.threads.create("bob", "b")).id}/plans`, {
          token: bob,
        })
      ).json(),
    ).toEqual({ plans: [] });
  });
});

describe("GET /api/threads/:id/usage", () => {
  it("sums the ledger per turn and per parent node: the root's own calls under null, a subtask's under its call", async () => {
    server = await startChatServer(
      [
        {
          toolCalls: [
            { id: "sub_1", name: "run_subtask", args: { title: "Look", instructions: "look it up" } },
          ],
          usage: { inputTokens: 100, outputTokens: 10 },
        },
        { text: "found it", usage: { inputTokens: 40, outputTokens: 4 } },
        { text: "all done", usage: { inputTokens: 200, outputTokens: 20 } },
      ],
      { auth: "token" },
    );
    const alice = await server.createToken("alice");
    const bob = await server.createToken("bob");
    const client = await server.connect({ token: alice });
    client.command("chat_message", { content: "go" });
    const threadId = threadOf(await client.collectUntil(isDone));
    server.provider.assertComplete();

    // A later turn whose calls have a known cost (the scripted model has no price).
    const later = await server.repos.turns.start("alice", threadId, {}, Date.now() + 60_000);
    const at = Date.now() + 60_000;
    for (const [i, [parentId, cost]] of (
      [
        [null, 0.25],
        ["sub_9", 0.125],
        [null, 0.5],
      ] as const
    ).entries()) {
      await server.repos.llmCalls.record(
        "alice",
        threadId,
        later.id,
        {
          provider: "p",
          model: "m",
          operation: parentId === null ? "turn" : "subtask",
          depth: parentId === null ? 0 : 1,
          parentId,
          inputTokens: 1,
          outputTokens: 2,
          reasoningTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: cost,
          costKnown: parentId === null,
          latencyMs: 5,
          startedAt: 0,
        },
        at + i,
      );
    }

    const res = await server.fetch(`/api/threads/${threadId}/usage`, { token: alice });
    expect(res.status).toBe(200);
    const usage = ThreadUsage.parse(await res.json());
    expect(usage.turns).toHaveLength(2);
    const [first, second] = usage.turns;
    // The scripted model has no price: its cost is unknown, not free.
    expect(first).toMatchObject({
      input_tokens: 340,
      output_tokens: 34,
      cost_usd: 0,
      cost_known: false,
      llm_calls: 3,
    });
    expect(first?.nodes).toEqual([
      {
        parent_id: null,
        operation: "turn",
        input_tokens: 300,
        output_tokens: 30,
        cost_usd: 0,
        cost_known: false,
        llm_calls: 2,
      },
      {
        parent_id: "sub_1",
        operation: "subtask",
        input_tokens: 40,
        output_tokens: 4,
        cost_usd: 0,
        cost_known: false,
        llm_calls: 1,
      },
    ]);
    expect(second).toEqual({
      turn_id: later.id,
      input_tokens: 3,
      output_tokens: 6,
      cost_usd: 0.875,
      cost_known: false,
      llm_calls: 3,
      nodes: [
        {
          parent_id: null,
          operation: "turn",
          input_tokens: 2,
          output_tokens: 4,
          cost_usd: 0.75,
          cost_known: true,
          llm_calls: 2,
        },
        {
          parent_id: "sub_9",
          operation: "subtask",
          input_tokens: 1,
          output_tokens: 2,
          cost_usd: 0.125,
          cost_known: false,
          llm_calls: 1,
        },
      ],
      by_operation: [
        {
          operation: "turn",
          input_tokens: 2,
          output_tokens: 4,
          cost_usd: 0.75,
          cost_known: true,
          llm_calls: 2,
        },
        {
          operation: "subtask",
          input_tokens: 1,
          output_tokens: 2,
          cost_usd: 0.125,
          cost_known: false,
          llm_calls: 1,
        },
      ],
    });
    // The thread's totals per operation, over both turns.
    expect(usage.by_operation).toEqual([
      {
        operation: "turn",
        input_tokens: 302,
        output_tokens: 34,
        cost_usd: 0.75,
        cost_known: false,
        llm_calls: 4,
      },
      {
        operation: "subtask",
        input_tokens: 41,
        output_tokens: 6,
        cost_usd: 0.125,
        cost_known: false,
        llm_calls: 2,
      },
    ]);
    expect(first?.turn_id).not.toBe(later.id);

    const theirs = await server.fetch(`/api/threads/${threadId}/usage`, { token: bob });
    const missing = await server.fetch("/api/threads/nope/usage", { token: bob });
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
  });
});

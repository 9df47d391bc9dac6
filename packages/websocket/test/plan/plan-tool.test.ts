import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { firstText, lastMessage, script } from "@agentwire-chat/testkit/plan-script";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "../chat/turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);

async function draftOnThread(s: ChatTestServer) {
  const client = await s.connect();
  client.command("chat_message", { content: "make a report (draft_only)" });
  const frames = await client.collectUntil(isDone);
  const ready = ofType(frames, "plan_ready_for_review")[0];
  if (!ready) throw new Error("no plan_ready_for_review");
  return { client, frames, threadId: threadOf(frames), planId: ready.plan.id };
}

describe("create_plan over the socket", () => {
  it("auto_execute: steps nest under the call in frames and in the stored tree; the planner call is in the ledger", async () => {
    server = await startChatServer(script);
    const client = await server.connect();
    client.command("chat_message", { content: "make a report (auto_execute)" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expectStartsEnded(frames);
    const threadId = threadOf(frames);
    expect(ofType(frames, "plan_created")[0]).toMatchObject({
      tool_call_id: "cp1",
      execution_mode: "auto_execute",
    });
    const steps = ofType(frames, "tool_call_update").filter((f) => f.name === "plan_step");
    expect(steps).toHaveLength(6);
    for (const f of steps) expect(f).toMatchObject({ parent_id: "cp1", depth: 1 });
    const chunks = ofType(frames, "chunk").filter((f) => f.parent_id?.startsWith("cp1/"));
    for (const f of chunks) expect(f.depth).toBe(2);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const final = finalRow(frames);
    expect(final.content).toContain("finished:");
    const nodes = final.execution_tree?.nodes ?? [];
    expect(
      nodes
        .filter((n) => n.parent_id === "cp1")
        .map((n) => n.title)
        .sort(),
    ).toEqual(["Collect facts", "Find quotes", "Write it"]);
    const writeTask = server.provider.requests.map(firstText).find((t) => t.startsWith("write it")) ?? "";
    expect(writeTask).toContain("did collect facts");
    expect(writeTask).toContain("did find quotes");
    const turn = await server.repos.turns.latest("local", threadId);
    const calls = await server.repos.llmCalls.forTurn("local", turn?.id ?? "");
    // root ×2, planner, three steps
    expect(calls).toHaveLength(6);
    // depth 0: the root's two calls; 1: the planner, under the create_plan call; 2: the steps' calls
    expect(calls.map((c) => c.depth).sort()).toEqual([0, 0, 1, 2, 2, 2]);
    // Each row names the node that made it, so cost per subtask reads back from the ledger.
    const stepIds = nodes.filter((n) => n.parent_id === "cp1").map((n) => n.id);
    expect(calls.filter((c) => c.depth === 0).map((c) => c.parentId)).toEqual([null, null]);
    expect(calls.filter((c) => c.depth === 1).map((c) => c.parentId)).toEqual(["cp1"]);
    expect(
      calls
        .filter((c) => c.depth === 2)
        .map((c) => c.parentId)
        .sort(),
    ).toEqual([...stepIds].sort());
    expect(turn?.usage).toMatchObject({ llm_calls: 6, subtasks: 3 });
    const planId = ofType(frames, "plan_created")[0]?.plan.id ?? "";
    expect((await server.repos.plans.get("local", planId))?.status).toBe("complete");
  });

  it("draft_only then approve: stored pending, then a following turn runs the plan and the model answers with it", async () => {
    server = await startChatServer(script);
    const { client, frames, threadId, planId } = await draftOnThread(server);
    expect(ofType(frames, "tool_call_update").filter((f) => f.name === "plan_step")).toHaveLength(0);
    expect(await server.repos.plans.get("local", planId)).toMatchObject({
      status: "pending_review",
      threadId,
      toolCallId: "cp1",
      // The approved run uses the tools of the context it was drafted in.
      chatContext: { kind: "thread" },
    });

    client.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" }, "r-ok");
    const run = await client.collectUntil(isDone);
    expectWellFormedTurn(run, (frames.at(-1) as { seq: number }).seq + 1);
    expectStartsEnded(run);
    const userRow = ofType(run, "message")[0];
    expect(userRow?.message).toMatchObject({ role: "user", content: "Approved the plan." });
    expect(userRow?.request_id).toBe("r-ok");
    const created = ofType(run, "plan_created")[0];
    expect(created?.plan.id).toBe(planId);
    const call = created?.tool_call_id ?? "";
    const steps = ofType(run, "tool_call_update").filter((f) => f.name === "plan_step");
    expect(steps).toHaveLength(6);
    for (const f of steps) expect(f).toMatchObject({ parent_id: call, depth: 1 });
    expect(finalRow(run).content).toContain("finished:");
    expect(finalRow(run).execution_tree?.nodes.filter((n) => n.parent_id === call)).toHaveLength(3);
    expect((await server.repos.plans.get("local", planId))?.status).toBe("complete");
    // The model read the plan's result as the create_plan call's result, and it is stored.
    const answerRequest = server.provider.requests.at(-1);
    expect(lastMessage(answerRequest as ProviderRequest)).toMatchObject({ role: "tool", toolCallId: call });
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => r.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(rows[5]?.tool_calls?.[0]).toMatchObject({ id: call, name: "create_plan" });
  });

  it("revise: the feedback is the next turn's user message; the plan is marked revised", async () => {
    server = await startChatServer(script);
    const { client, threadId, planId } = await draftOnThread(server);
    client.command("plan_decision", {
      thread_id: threadId,
      plan_id: planId,
      decision: "revise",
      feedback: "use three sources",
    });
    const run = await client.collectUntil(isDone);
    expect(ofType(run, "message")[0]?.message).toMatchObject({ role: "user", content: "use three sources" });
    expect(finalRow(run).content).toBe("noted: use three sources");
    expect(ofType(run, "tool_call_update")).toHaveLength(0);
    expect((await server.repos.plans.get("local", planId))?.status).toBe("revised");
  });

  it("refuses decisions on unknown plans, other users' threads, busy threads and decided plans", async () => {
    const held = gate();
    let holdNext = false;
    server = await startChatServer(
      (r) => (holdNext && lastMessage(r)?.role === "user" ? { gate: held.promise, text: "slow" } : script(r)),
      { auth: "token" },
    );
    const alice = await server.connect({ token: await server.createToken("alice") });
    alice.command("chat_message", { content: "make a report (draft_only)" });
    const frames = await alice.collectUntil(isDone);
    const threadId = threadOf(frames);
    const planId = ofType(frames, "plan_ready_for_review")[0]?.plan.id ?? "";

    alice.command("plan_decision", { thread_id: threadId, plan_id: "nope", decision: "approve" });
    expect(await alice.next("error")).toMatchObject({ code: "not_found" });
    alice.command("plan_decision", { thread_id: "no-thread", plan_id: planId, decision: "approve" });
    expect(await alice.next("error")).toMatchObject({ code: "not_found" });

    const bob = await server.connect({ token: await server.createToken("bob") });
    bob.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" });
    expect(await bob.next("error")).toMatchObject({ code: "not_found" });

    holdNext = true;
    alice.command("chat_message", { content: "something slow", thread_id: threadId });
    await alice.next("agent_state", { where: (f) => f.state === "thinking" });
    alice.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" }, "r-busy");
    expect(await alice.next("error")).toMatchObject({ code: "busy", request_id: "r-busy" });
    expect((await server.repos.plans.get("alice", planId))?.status).toBe("pending_review");
    held.open();
    await alice.collectUntil(isDone);
    holdNext = false;

    alice.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "revise" });
    await alice.collectUntil(isDone);
    alice.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" }, "r-again");
    expect(await alice.next("error")).toMatchObject({ code: "bad_request", request_id: "r-again" });
    expect((await server.repos.plans.get("alice", planId))?.status).toBe("revised");
  });
});

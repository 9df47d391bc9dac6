import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "../chat/turn-helpers.js";

let servers: ChatTestServer[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);

/** Stage 1 (parallel): "collect facts" asks the user, "find quotes" answers; stage 2 writes from both. */
const plan = {
  goal: "a short report",
  stages: [
    {
      id: "research",
      name: "Research",
      mode: "parallel",
      steps: [
        { id: "facts", title: "Collect facts", instructions: "collect facts" },
        { id: "quotes", title: "Find quotes", instructions: "find quotes" },
      ],
    },
    {
      id: "write",
      name: "Write",
      mode: "sequence",
      steps: [{ id: "draft", title: "Write it", instructions: "write it", inputs: ["facts", "quotes"] }],
    },
  ],
};

const firstText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};
const toolResult = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "tool" ? last.content : undefined;
};

/** Root → create_plan (auto_execute) → "finished: <result>"; the facts step asks "Which year?" first. */
function script(r: ProviderRequest): ScriptedStep {
  if (r.systemPrompt.startsWith("You are a planner")) {
    return { text: `\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`` };
  }
  const result = toolResult(r);
  if (r.systemPrompt.startsWith("You are a focused sub-agent")) {
    const task = firstText(r).split("\n")[0];
    if (task === "collect facts" && result === undefined) {
      return { toolCalls: [{ id: "q1", name: "ask_user", args: { question: "Which year?" } }] };
    }
    return { text: result === undefined ? `did ${task}` : `did ${task} for ${result}` };
  }
  if (result !== undefined) return { text: `finished: ${result}` };
  const last = r.messages.at(-1);
  const said = last?.role === "user" ? contentText(last.content) : "";
  const mode = said.includes("draft_only") ? "draft_only" : "auto_execute";
  return {
    toolCalls: [{ id: "cp1", name: "create_plan", args: { objective: "a report", execution_mode: mode } }],
  };
}

/** Runs the turn until it waits on the step's question. */
async function askOn(server: ChatTestServer) {
  const client = await server.connect();
  client.command("chat_message", { content: "make a report" });
  const frames = await client.collectUntil((f) => f.type === "agent_state" && f.state === "waiting_on_user");
  expect(ofType(frames, "question")).toEqual([
    expect.objectContaining({ tool_call_id: "q1", question: "Which year?" }),
  ]);
  const ask = ofType(frames, "tool_call_update").find((f) => f.tool_call_id === "q1");
  expect(ask).toMatchObject({ parent_id: "cp1/facts", depth: 2 });
  // The other step of the stage finished; the asking step and the plan wait; stage 2 has not started.
  const ends = ofType(frames, "tool_call_update").filter((f) => f.status === "end");
  expect(ends.map((f) => f.tool_call_id)).toEqual(["cp1/quotes"]);
  expect(ofType(frames, "tool_call_update").some((f) => f.tool_call_id === "cp1/draft")).toBe(false);
  const threadId = threadOf(frames);
  const planId = ofType(frames, "plan_created")[0]?.plan.id ?? "";
  expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
  expect((await server.repos.plans.get("local", planId))?.status).toBe("running");
  return { client, frames, threadId, planId, lastSeq: (frames.at(-1) as { seq: number }).seq };
}

/** The answered turn: the step resumes, stage 2 runs, the model answers, the tree nests under create_plan. */
async function expectFinished(
  server: ChatTestServer,
  before: ServerFrame[],
  frames: ServerFrame[],
  lastSeq: number,
) {
  expectWellFormedTurn(frames, lastSeq + 1);
  expectStartsEnded([...before, ...frames]);
  const ends = ofType(frames, "tool_call_update").filter((f) => f.status === "end");
  expect(ends.map((f) => [f.tool_call_id, f.parent_id, f.depth])).toEqual([
    ["q1", "cp1/facts", 2],
    ["cp1/facts", "cp1", 1],
    ["cp1/draft", "cp1", 1],
    ["cp1", null, 0],
  ]);
  const writeTask = server.provider.requests.map(firstText).find((t) => t.startsWith("write it")) ?? "";
  expect(writeTask).toContain("did collect facts for 1999");
  expect(writeTask).toContain("did find quotes");
  const final = finalRow(frames);
  expect(final.status).toBe("complete");
  expect(final.content).toContain("finished: ");
  expect(final.content).toContain('"status":"complete"');
  const nodes = final.execution_tree?.nodes ?? [];
  expect(
    nodes
      .filter((n) => n.parent_id === "cp1")
      .map((n) => n.id)
      .sort(),
  ).toEqual(["cp1/draft", "cp1/facts", "cp1/quotes"]);
  expect(nodes.find((n) => n.id === "q1")).toMatchObject({ parent_id: "cp1/facts", result_preview: "1999" });
}

describe("a plan step that asks the user, over the socket", () => {
  it("suspends the turn; the answer resumes the step, runs the rest of the plan and completes the turn", async () => {
    const server = await startChatServer(script);
    servers.push(server);
    const { client, frames: before, threadId, planId, lastSeq } = await askOn(server);
    client.command("answer", { thread_id: threadId, tool_call_id: "q1", answer: "1999" });
    const frames = await client.collectUntil(isDone);
    await expectFinished(server, before, frames, lastSeq);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("complete");
    expect((await server.repos.plans.get("local", planId))?.status).toBe("complete");
    // The conversation keeps the create_plan call paired with its result.
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("survives a restart: a new server over the same database resumes the plan from the stored state", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-plan-suspend-"));
    const dbPath = join(dir, "agentwire.db");
    const first = await startChatServer(script, { dbPath });
    servers.push(first);
    const { frames: before, threadId, planId, lastSeq } = await askOn(first);
    await first.close();
    servers = [];

    const second = await startChatServer(script, { dbPath });
    servers.push(second);
    const client = await second.connect();
    client.command("answer", { thread_id: threadId, tool_call_id: "q1", answer: "1999" });
    const frames = await client.collectUntil(isDone);
    await expectFinished(second, before, frames, lastSeq);
    // The new process made only the calls after the answer: the step, stage 2, the root.
    expect(second.provider.requests.map(firstText).map((t) => t.split("\n")[0])).toEqual([
      "collect facts",
      "write it",
      "make a report",
    ]);
    expect((await second.repos.plans.get("local", planId))?.status).toBe("complete");
  });

  it("an approved draft whose step asks: the approval turn waits, and the answer finishes the plan", async () => {
    const server = await startChatServer(script);
    servers.push(server);
    const client = await server.connect();
    client.command("chat_message", { content: "make a report (draft_only)" });
    const drafted = await client.collectUntil(isDone);
    const planId = ofType(drafted, "plan_ready_for_review")[0]?.plan.id ?? "";
    const threadId = threadOf(drafted);
    client.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" });
    const before = await client.collectUntil(
      (f) => f.type === "agent_state" && f.state === "waiting_on_user",
    );
    const call = ofType(before, "plan_created")[0]?.tool_call_id ?? "";
    expect(ofType(before, "question")).toEqual([expect.objectContaining({ tool_call_id: "q1" })]);
    expect(ofType(before, "tool_call_update").find((f) => f.tool_call_id === "q1")).toMatchObject({
      parent_id: `${call}/facts`,
      depth: 2,
    });
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("waiting_user");
    expect((await server.repos.plans.get("local", planId))?.status).toBe("running");

    client.command("answer", { thread_id: threadId, tool_call_id: "q1", answer: "1999" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames, (before.at(-1) as { seq: number }).seq + 1);
    expectStartsEnded([...before, ...frames]);
    const ends = ofType(frames, "tool_call_update").filter((f) => f.status === "end");
    expect(ends.map((f) => f.tool_call_id)).toEqual(["q1", `${call}/facts`, `${call}/draft`, call]);
    const final = finalRow(frames);
    expect(final).toMatchObject({ status: "complete" });
    expect(final.content).toContain('"status":"complete"');
    expect((await server.repos.plans.get("local", planId))?.status).toBe("complete");
    // Draft turn: user, call, result, answer; approval turn: user, the plan's call, its result, answer.
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
  });

  it("stop while a step waits: every open node ends, the turn is stopped, the plan stored failed", async () => {
    const server = await startChatServer(script);
    servers.push(server);
    const { client, frames: before, threadId } = await askOn(server);
    client.command("stop", { thread_id: threadId });
    const frames = await client.collectUntil(isDone);
    expectStartsEnded([...before, ...frames]);
    const ends = ofType(frames, "tool_call_update").filter((f) => f.status === "end");
    expect(ends.map((f) => [f.tool_call_id, f.result])).toEqual([
      ["q1", "cancelled"],
      ["cp1/facts", "cancelled"],
      ["cp1", "cancelled"],
    ]);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
    // The plan will not run on: it is stored failed, not left running.
    const planId = ofType(before, "plan_created")[0]?.plan.id ?? "";
    expect((await server.repos.plans.get("local", planId))?.status).toBe("failed");
  });
});

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
import { expectStartsEnded, finalRow, threadOf } from "../chat/turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Frame<T extends ServerFrame["type"]> = Extract<ServerFrame, { type: T }>;
const ofType = <T extends ServerFrame["type"]>(frames: ServerFrame[], type: T) =>
  frames.filter((f): f is Frame<T> => f.type === type);

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
  ],
};

const said = (r: ProviderRequest) => {
  const last = r.messages.at(-1);
  return last?.role === "user" ? contentText(last.content) : "";
};
const DRAFT_ID = /plan_id "([^"]+)"/;

/**
 * Root: "make a report" → create_plan draft_only; "go ahead" → create_plan {plan_id} of the draft the
 * system prompt names (or of `forcedId`); after a tool result → "finished: …". Planner → the plan; steps → "did …".
 */
function script(forcedId?: () => string | undefined) {
  return (r: ProviderRequest): ScriptedStep => {
    if (r.systemPrompt.startsWith("You are a planner"))
      return { text: `\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`` };
    if (r.systemPrompt.startsWith("You are a focused sub-agent")) return { text: "did it" };
    const last = r.messages.at(-1);
    if (last?.role === "tool") return { text: `finished: ${last.content.slice(0, 60)}` };
    if (said(r) === "make a report") {
      return {
        toolCalls: [
          { id: "cp1", name: "create_plan", args: { objective: "a report", execution_mode: "draft_only" } },
        ],
      };
    }
    if (said(r) === "go ahead") {
      const id = forcedId?.() ?? DRAFT_ID.exec(r.systemPrompt)?.[1];
      if (!id) return { text: "no draft to run" };
      return { toolCalls: [{ id: "cp2", name: "create_plan", args: { plan_id: id } }] };
    }
    return { text: `noted: ${said(r)}` };
  };
}

async function draft(s: ChatTestServer) {
  const client = await s.connect();
  client.command("chat_message", { content: "make a report" });
  const frames = await client.collectUntil(isDone);
  const ready = ofType(frames, "plan_ready_for_review")[0];
  if (!ready) throw new Error("no plan_ready_for_review");
  return { client, frames, threadId: threadOf(frames), planId: ready.plan.id };
}

const lastSeq = (frames: ServerFrame[]) => (frames.at(-1) as { seq: number }).seq;

describe("a typed approval runs the pending draft", () => {
  it("the draft is in the next turn's context by id; create_plan {plan_id} runs it like an approve, without planning again", async () => {
    server = await startChatServer(script());
    const { client, frames, threadId, planId } = await draft(server);
    const before = server.provider.requests.length;

    client.command("chat_message", { thread_id: threadId, content: "go ahead" });
    const run = await client.collectUntil(isDone);
    expectWellFormedTurn(run, lastSeq(frames) + 1);
    expectStartsEnded(run);

    // The model read the draft: its id, goal and steps, and how to run it.
    const asked = server.provider.requests[before] as ProviderRequest;
    expect(asked.systemPrompt).toContain("## Plans waiting for the user's review");
    expect(asked.systemPrompt).toContain(`plan_id "${planId}": a short report`);
    expect(asked.systemPrompt).toContain("Collect facts; Find quotes");
    expect(asked.systemPrompt).toContain("create_plan {plan_id}");
    const turnRequests = server.provider.requests.slice(before);
    expect(turnRequests.some((r) => r.systemPrompt.startsWith("You are a planner"))).toBe(false);

    expect(ofType(run, "plan_created")[0]).toMatchObject({
      tool_call_id: "cp2",
      execution_mode: "draft_only",
      plan: { id: planId },
    });
    const steps = ofType(run, "tool_call_update").filter((f) => f.name === "plan_step");
    expect(steps).toHaveLength(4);
    for (const f of steps) expect(f).toMatchObject({ parent_id: "cp2", depth: 1 });
    const call = ofType(run, "tool_call_update").find((f) => f.tool_call_id === "cp2" && f.status === "end");
    expect(call?.is_error ?? false).toBe(false);
    expect(finalRow(run).content).toContain("finished:");
    expect((await server.repos.plans.get("local", planId))?.status).toBe("complete");

    // Run once: the pressed Approve that comes late is refused, and the next turn names no draft.
    client.command("plan_decision", { thread_id: threadId, plan_id: planId, decision: "approve" }, "late");
    const refused = await client.next("error");
    expect(refused).toMatchObject({ code: "bad_request" });
    const count = server.provider.requests.length;
    client.command("chat_message", { thread_id: threadId, content: "go ahead" });
    const again = await client.collectUntil(isDone);
    expect(server.provider.requests[count]?.systemPrompt).not.toContain(
      "Plans waiting for the user's review",
    );
    expect(finalRow(again).content).toBe("no draft to run");
  });

  it("create_plan {plan_id} of a plan that does not wait (another thread's, or unknown) is a tool error; nothing runs", async () => {
    let forced: string | undefined;
    server = await startChatServer(script(() => forced));
    const first = await draft(server);
    const other = await draft(server);
    // Another thread's draft: not run from here.
    forced = other.planId;
    first.client.command("chat_message", { thread_id: first.threadId, content: "go ahead" });
    const run = await first.client.collectUntil(isDone);
    const end = ofType(run, "tool_call_update").find((f) => f.tool_call_id === "cp2" && f.status === "end");
    expect(end).toMatchObject({ is_error: true });
    expect(end?.result).toContain(`no draft plan "${other.planId}" waits for review in this conversation`);
    expect(ofType(run, "tool_call_update").filter((f) => f.name === "plan_step")).toHaveLength(0);
    expect((await server.repos.plans.get("local", other.planId))?.status).toBe("pending_review");

    forced = "no-such-plan";
    first.client.command("chat_message", { thread_id: first.threadId, content: "go ahead" });
    const unknown = await first.client.collectUntil(isDone);
    const miss = ofType(unknown, "tool_call_update").find(
      (f) => f.tool_call_id === "cp2" && f.status === "end",
    );
    expect(miss).toMatchObject({ is_error: true });
    expect((await server.repos.plans.get("local", first.planId))?.status).toBe("pending_review");
  });

  it("create_plan with neither objective nor plan_id is a tool error the model can read", async () => {
    server = await startChatServer([
      { toolCalls: [{ id: "cp", name: "create_plan", args: {} }] },
      { text: "sorry" },
    ]);
    const client = await server.connect();
    client.command("chat_message", { content: "plan" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    const end = ofType(frames, "tool_call_update").find((f) => f.tool_call_id === "cp" && f.status === "end");
    expect(end).toMatchObject({ is_error: true });
    expect(end?.result).toContain("give an objective, or the plan_id of a draft to run");
  });
});

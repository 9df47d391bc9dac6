import type { BudgetLimits, ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedResponder, ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { afterEach, describe, expect, it } from "vitest";
import { expectStartsEnded, finalRow, storedMessages, threadOf } from "./turn-helpers.js";

let server: ChatTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const isSub = (r: ProviderRequest) => r.messages[0]?.role === "user" && r.messages[0].content === "sub:x";

type Case = {
  reason: string;
  limits: Partial<BudgetLimits>;
  script: ScriptedStep[] | ScriptedResponder;
  limit: number;
  /** The observed value, or a check of it when it is not exact (wall clock). */
  observed: number | ((n: number) => boolean);
  partial: string;
};

const cases: Case[] = [
  {
    reason: "llm_calls",
    limits: { MAX_TOTAL_LLM_CALLS: 1 },
    script: [{ text: "Looking it up", toolCalls: [{ id: "e1", name: "echo", args: { text: "x" } }] }],
    limit: 1,
    observed: 2,
    partial: "Looking it up",
  },
  {
    reason: "tool_calls",
    limits: { MAX_TOTAL_TOOL_CALLS: 1 },
    script: [
      {
        text: "Two at once",
        toolCalls: [
          { id: "e1", name: "echo", args: { text: "1" } },
          { id: "e2", name: "echo", args: { text: "2" } },
        ],
      },
    ],
    limit: 1,
    observed: 2,
    partial: "Two at once",
  },
  {
    reason: "subtasks",
    limits: { MAX_TOTAL_SUBTASKS: 1 },
    script: (request) =>
      isSub(request)
        ? { text: "child", hold: "until-aborted" }
        : {
            text: "Splitting",
            toolCalls: [
              { id: "s1", name: "run_subtask", args: { title: "One", instructions: "sub:x" } },
              { id: "s2", name: "run_subtask", args: { title: "Two", instructions: "sub:x" } },
            ],
          },
    limit: 1,
    observed: 2,
    partial: "Splitting",
  },
  {
    reason: "tokens",
    limits: { MAX_TOTAL_TOKENS: 100 },
    script: [{ text: ["partial ", "answer"], usage: { inputTokens: 90, outputTokens: 20 } }],
    limit: 100,
    observed: 110,
    partial: "partial answer",
  },
  {
    reason: "bytes",
    limits: { MAX_TOTAL_TOOL_RESULT_BYTES: 10 },
    script: [
      { text: "Reading", toolCalls: [{ id: "e1", name: "echo", args: { text: "0123456789abcdef" } }] },
    ],
    limit: 10,
    observed: "echo:0123456789abcdef".length,
    partial: "Reading",
  },
  {
    reason: "wall_clock",
    limits: { MAX_WALL_CLOCK_MS: 30 },
    script: [{ text: "slow start", hold: "until-aborted" }],
    limit: 30,
    observed: (n) => n > 30,
    partial: "slow start",
  },
];

describe("turn budgets over the socket", () => {
  for (const c of cases) {
    it(`${c.reason}: one budget_exceeded, the partial answer stored with status budget_exceeded, done last`, async () => {
      server = await startChatServer(c.script, { limits: c.limits, extraTools: [echoTool()] });
      const client = await server.connect();
      client.command("chat_message", { content: `spend ${c.reason}` });
      const frames = await client.collectUntil(isDone);
      expectWellFormedTurn(frames);
      expectStartsEnded(frames);
      const breaches = frames.filter(
        (f): f is Extract<ServerFrame, { type: "budget_exceeded" }> => f.type === "budget_exceeded",
      );
      expect(breaches).toHaveLength(1);
      const breach = breaches[0] as Extract<ServerFrame, { type: "budget_exceeded" }>;
      expect(breach).toMatchObject({ reason: c.reason, limit: c.limit });
      if (typeof c.observed === "number") expect(breach.observed).toBe(c.observed);
      else expect(c.observed(breach.observed), `observed ${breach.observed}`).toBe(true);
      // The breach comes before the final row, and the turn ends after it.
      const breachAt = frames.indexOf(breach);
      const final = finalRow(frames);
      expect(frames.findIndex((f) => f.type === "message" && f.message.id === final.id)).toBeGreaterThan(
        breachAt,
      );
      expect(final).toMatchObject({ role: "assistant", status: "budget_exceeded", content: c.partial });
      expect(frames.some((f) => f.type === "error")).toBe(false);
      const threadId = threadOf(frames);
      expect((await server.repos.turns.latest("local", threadId))?.status).toBe("budget_exceeded");
      const rows = await storedMessages(server, threadId);
      expect(rows.at(-1)).toMatchObject({ status: "budget_exceeded", content: c.partial });
      expect(frames.find((f) => f.type === "usage")).toBeDefined();
      await client.ping();
    });
  }
});

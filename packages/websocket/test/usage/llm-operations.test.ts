import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import { contentText, type LlmOperation, ThreadUsage } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { plan } from "@agentwire-chat/testkit/plan-script";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { AgentwireMetrics, createTurnTracer } from "../../src/index.js";
import { threadOf } from "../chat/turn-helpers.js";
import { isSummarizer, seedThread, settings, summaryStep, USER } from "../context/context-fixtures.js";

let server: ChatTestServer | undefined;
let tracing: BasicTracerProvider | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  await tracing?.shutdown();
  server = undefined;
  tracing = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A priced model: the scripted provider answers as any model it is asked for. */
const MODEL = "gpt-4o-mini";

/** Tokens of each call, distinct per operation, so every total says which calls it counted. */
const TOKENS: Record<LlmOperation, [number, number]> = {
  turn: [100, 10],
  subtask: [20, 2],
  plan_step: [50, 5],
  planner: [30, 3],
  plan_review: [40, 4],
  summarizer: [500, 50],
  title: [0, 0],
  workflow_planner: [0, 0],
};
const usage = (op: LlmOperation) => ({
  inputTokens: TOKENS[op][0],
  outputTokens: TOKENS[op][1],
});

const firstText = (r: ProviderRequest) => {
  const first = r.messages[0];
  return first?.role === "user" ? contentText(first.content) : "";
};

/**
 * The summarizer answers with a summary; the root calls run_subtask, then create_plan (agent_review),
 * then answers; the subtask, the planner, the reviewer and each plan step answer at once.
 */
function script(r: ProviderRequest): ScriptedStep {
  if (isSummarizer(r)) return summaryStep("S: the earlier questions");
  if (r.systemPrompt.startsWith("You are a planner"))
    return { text: `\`\`\`json\n${JSON.stringify(plan)}\n\`\`\``, usage: usage("planner") };
  if (r.systemPrompt.startsWith("You review plans"))
    return { text: '{"verdict": "approve", "notes": "fine"}', usage: usage("plan_review") };
  if (r.systemPrompt.startsWith("You are a focused sub-agent")) {
    const task = firstText(r);
    return task === "look it up"
      ? { text: "found it", usage: usage("subtask") }
      : { text: `did ${task.split("\n")[0]}`, usage: usage("plan_step") };
  }
  const last = r.messages.at(-1);
  if (last?.role === "tool" && last.name === "run_subtask") {
    return {
      toolCalls: [
        { id: "cp1", name: "create_plan", args: { objective: "a report", execution_mode: "agent_review" } },
      ],
      usage: usage("turn"),
    };
  }
  if (last?.role === "tool") return { text: "all done", usage: usage("turn") };
  return {
    toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Look", instructions: "look it up" } }],
    usage: usage("turn"),
  };
}

/** MODEL's list price, USD per million tokens (agents' usage/prices.ts). */
const PRICE = { input: 0.15, output: 0.6 };

/** What an operation's calls cost at MODEL's price. */
function costOf(op: LlmOperation, calls: number): number {
  const [input, output] = TOKENS[op];
  return (calls * (input * PRICE.input + output * PRICE.output)) / 1_000_000;
}

/** The calls the turn makes, per operation: what the ledger, the route, the metrics and the spans must count. */
const EXPECTED: [LlmOperation, number][] = [
  ["turn", 3],
  ["subtask", 1],
  ["planner", 1],
  ["plan_review", 1],
  ["plan_step", 3],
  ["summarizer", 1],
];

/** Resolves when a span matching a predicate ends (the turn's span ends after its last frame). */
class EndedSpans implements SpanProcessor {
  private readonly waiters: { match: (s: ReadableSpan) => boolean; resolve: () => void }[] = [];
  private readonly ended: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.ended.push(span);
    for (const w of this.waiters.filter((w) => w.match(span))) w.resolve();
  }
  until(match: (s: ReadableSpan) => boolean): Promise<void> {
    if (this.ended.some(match)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

const isRoot = (s: ReadableSpan) => s.name === "invoke_agent agentwire";
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const idOf = (s: ReadableSpan) => s.spanContext().spanId;

describe("every model call says what it was for", () => {
  it("a turn with a subtask, a reviewed plan and a summarizer call: the ledger, the usage route, /metrics and the spans name each call's operation", async () => {
    const exporter = new InMemorySpanExporter();
    const ended = new EndedSpans();
    tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), ended] });
    const metrics = new AgentwireMetrics({
      openSockets: () => 0,
      turns: () => ({ running: 0, suspended: 0 }),
    });
    server = await startChatServer(script, { observer: metrics });
    server.chat.observeTurn = createTurnTracer(tracing.getTracer("agentwire-test"));
    // A long thread under a small context budget: the turn waits for the summarizer's call first.
    server.chat.context = settings({ CONTEXT_MAX_TOKENS: 4_000 });
    const { threadId } = await seedThread(server, 50);
    const client = await server.connect();
    client.command("chat_message", { content: "go", thread_id: threadId, model: MODEL });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames, 1);
    expect(threadOf(frames)).toBe(threadId);
    expect(isSummarizer(server.provider.requests[0] as ProviderRequest)).toBe(true);
    await ended.until(isRoot);
    const turnId = (await server.repos.turns.latest(USER, threadId))?.id ?? "";

    // The ledger: each row's operation, under the node it ran for.
    const rows = await server.repos.llmCalls.forTurn(USER, turnId);
    const byNode = rows
      .map((r) => [r.parentId, r.operation, r.depth])
      .sort((a, b) => key(a).localeCompare(key(b)));
    expect(byNode).toEqual(
      [
        [null, "summarizer", 0],
        [null, "turn", 0],
        [null, "turn", 0],
        [null, "turn", 0],
        ["sub_1", "subtask", 1],
        ["cp1", "planner", 1],
        ["cp1", "plan_review", 1],
        ["cp1/facts", "plan_step", 2],
        ["cp1/quotes", "plan_step", 2],
        ["cp1/draft", "plan_step", 2],
      ].sort((a, b) => key(a).localeCompare(key(b))),
    );
    for (const row of rows) expect(row.model).toBe(MODEL);

    // The usage route: a node per (parent, operation), the turn's and the thread's totals per operation.
    const res = await server.fetch(`/api/threads/${threadId}/usage`);
    expect(res.status).toBe(200);
    const body = ThreadUsage.parse(await res.json());
    expect(body.turns.map((t) => t.turn_id)).toEqual([turnId]);
    const turn = body.turns[0];
    const nodes = (turn?.nodes ?? []).map((n) => [n.parent_id, n.operation, n.llm_calls, n.input_tokens]);
    expect(nodes.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [
        [null, "summarizer", 1, 500],
        [null, "turn", 3, 300],
        ["sub_1", "subtask", 1, 20],
        ["cp1", "planner", 1, 30],
        ["cp1", "plan_review", 1, 40],
        ["cp1/facts", "plan_step", 1, 50],
        ["cp1/quotes", "plan_step", 1, 50],
        ["cp1/draft", "plan_step", 1, 50],
      ].sort((a, b) => key(a).localeCompare(key(b))),
    );
    for (const totals of [turn?.by_operation ?? [], body.by_operation]) {
      const seen = new Map(totals.map((e) => [e.operation, e]));
      expect([...seen.keys()].sort()).toEqual(EXPECTED.map(([op]) => op).sort());
      for (const [op, calls] of EXPECTED) {
        const entry = seen.get(op);
        expect(entry, op).toMatchObject({
          llm_calls: calls,
          input_tokens: calls * TOKENS[op][0],
          output_tokens: calls * TOKENS[op][1],
          cost_known: true,
        });
        expect(entry?.cost_usd, op).toBeCloseTo(costOf(op, calls), 12);
      }
    }
    const total = EXPECTED.reduce((sum, [op, calls]) => sum + costOf(op, calls), 0);
    expect(turn?.cost_usd).toBeCloseTo(total, 12);
    expect(turn?.llm_calls).toBe(10);

    // /metrics: calls, tokens and cost per operation.
    const text = await metrics.registry.metrics();
    const labels = (op: LlmOperation) => `provider="scripted",model="${MODEL}",operation="${op}"`;
    for (const [op, calls] of EXPECTED) {
      expect(text).toContain(`agentwire_provider_calls_total{${labels(op)},outcome="ok"} ${calls}`);
      expect(text).toContain(`agentwire_tokens_total{${labels(op)},kind="input"} ${calls * TOKENS[op][0]}`);
      expect(text).toContain(`agentwire_tokens_total{${labels(op)},kind="output"} ${calls * TOKENS[op][1]}`);
    }
    const cost = await metrics.registry.getSingleMetric("agentwire_cost_usd_total")?.get();
    for (const [op, calls] of EXPECTED) {
      const value = cost?.values.find((v) => v.labels.operation === op)?.value;
      expect(value, op).toBeCloseTo(costOf(op, calls), 12);
    }

    // Spans: every model call's span carries its operation; a tool's own calls hang under its call,
    // a plan step's under the step's agent span.
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [idOf(s), s]));
    const parent = (s: ReadableSpan) => byId.get(parentOf(s) ?? "");
    const chats = spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats).toHaveLength(10);
    const counted = new Map<string, number>();
    for (const chat of chats) {
      const op = String(chat.attributes["agentwire.operation"]);
      counted.set(op, (counted.get(op) ?? 0) + 1);
    }
    expect(Object.fromEntries(counted)).toEqual(Object.fromEntries(EXPECTED));
    const of = (op: LlmOperation) => chats.filter((s) => s.attributes["agentwire.operation"] === op);
    for (const s of [...of("planner"), ...of("plan_review")]) {
      expect(parent(s)?.name).toBe("execute_tool create_plan");
      expect(s.attributes["agentwire.parent_id"]).toBe("cp1");
    }
    for (const s of of("plan_step")) {
      const agent = parent(s);
      expect(agent?.name).toBe("invoke_agent plan_step");
      expect(parent(agent as ReadableSpan)?.name).toBe("execute_tool plan_step");
      expect(parent(parent(agent as ReadableSpan) as ReadableSpan)?.name).toBe("execute_tool create_plan");
    }
    for (const s of [...of("turn"), ...of("summarizer")])
      expect(parent(s)?.name).toBe("invoke_agent agentwire");
    for (const s of of("subtask")) expect(parent(s)?.name).toBe("invoke_agent subtask");
    // Each span is one ledger row: the same operations under the same parents.
    const spanNodes = chats.map((s) => [
      s.attributes["agentwire.parent_id"] ?? null,
      s.attributes["agentwire.operation"],
    ]);
    expect(spanNodes.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      rows.map((r) => [r.parentId, r.operation]).sort((a, b) => key(a).localeCompare(key(b))),
    );
  });
});

const key = (row: unknown[]) => JSON.stringify(row);

/**
 * Root → create_plan (auto_execute) → "finished"; the "collect facts" step first calls the gated
 * write_note (the turn waits for approval), then answers; the other steps answer at once.
 */
function gatedStep(r: ProviderRequest): ScriptedStep {
  if (r.systemPrompt.startsWith("You are a planner"))
    return { text: `\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`` };
  const last = r.messages.at(-1);
  if (r.systemPrompt.startsWith("You are a focused sub-agent")) {
    const task = firstText(r).split("\n")[0];
    if (task === "collect facts" && last?.role !== "tool") {
      return { toolCalls: [{ id: "w1", name: "write_note", args: { text: "facts" } }] };
    }
    return { text: `did ${task}` };
  }
  if (last?.role === "tool") return { text: "finished" };
  return {
    toolCalls: [
      { id: "cp1", name: "create_plan", args: { objective: "a report", execution_mode: "auto_execute" } },
    ],
  };
}

describe("a plan step resumed after an approval, in a new server process", () => {
  it("records plan_step for the step's calls before and after the wait", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentwire-operations-"));
    const dbPath = join(dir, "agentwire.db");
    const options = {
      dbPath,
      policy: { workspaceWrite: "ask" as const },
      extraTools: [echoTool("write_note", "workspace_write")],
    };
    server = await startChatServer(gatedStep, options);
    const client = await server.connect();
    client.command("chat_message", { content: "make a report" });
    const before = await client.collectUntil(
      (f) => f.type === "agent_state" && f.state === "waiting_on_user",
    );
    const request = before.find((f) => f.type === "tool_approval_request");
    if (request?.type !== "tool_approval_request") throw new Error("no tool_approval_request");
    const threadId = threadOf(before);
    await server.close();

    // The process that ran the step is gone: the stored suspension is all the new one has.
    server = await startChatServer(gatedStep, options);
    const exporter = new InMemorySpanExporter();
    const ended = new EndedSpans();
    tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), ended] });
    server.chat.observeTurn = createTurnTracer(tracing.getTracer("agentwire-test"));
    const again = await server.connect();
    again.command("tool_approval_response", { approval_id: request.approval_id, decision: "allow" });
    await again.collectUntil(isDone);
    expect(server.provider.requests.map((r) => firstText(r).split("\n")[0])).toEqual([
      "collect facts",
      "write it",
      "make a report",
    ]);
    const turnId = (await server.repos.turns.latest(USER, threadId))?.id ?? "";
    const rows = await server.repos.llmCalls.forTurn(USER, turnId);
    const steps = rows.filter((r) => r.parentId?.startsWith("cp1/"));
    expect(steps.map((r) => r.parentId).sort()).toEqual([
      "cp1/draft",
      "cp1/facts",
      "cp1/facts",
      "cp1/quotes",
    ]);
    for (const row of steps) expect(row.operation, row.parentId ?? "").toBe("plan_step");
    expect(rows.filter((r) => r.parentId === null).map((r) => r.operation)).toEqual(["turn", "turn"]);
    expect(rows.filter((r) => r.parentId === "cp1").map((r) => r.operation)).toEqual(["planner"]);
    // The resumed segment's trace: its calls' spans say the same.
    await ended.until(isRoot);
    const chats = exporter.getFinishedSpans().filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(
      chats.map((s) => [s.attributes["agentwire.parent_id"] ?? null, s.attributes["agentwire.operation"]]),
    ).toEqual([
      ["cp1/facts", "plan_step"],
      ["cp1/draft", "plan_step"],
      [null, "turn"],
    ]);
  });
});

describe("a summarizer call that lands after its turn", () => {
  it("is a summarizer row in the ledger and counts in /metrics per operation", async () => {
    const release = gate();
    const metrics = new AgentwireMetrics({
      openSockets: () => 0,
      turns: () => ({ running: 0, suspended: 0 }),
    });
    server = await startChatServer(
      (r) =>
        isSummarizer(r)
          ? { ...summaryStep("S-late"), hold: release.promise }
          : { text: "ok", usage: usage("turn") },
      { observer: metrics },
    );
    // 17 messages against 20: the summarizer starts beside the turn, which does not wait for it.
    server.chat.context = settings({ CONTEXT_MAX_MESSAGES: 20 });
    const { threadId } = await seedThread(server, 4);
    const client = await server.connect();
    client.command("chat_message", { content: "first", thread_id: threadId, model: MODEL });
    await client.collectUntil(isDone);
    const summarizerSeries = `agentwire_provider_calls_total{provider="scripted",model="${MODEL}",operation="summarizer",outcome="ok"} 1`;
    expect(await metrics.registry.metrics()).not.toContain(summarizerSeries);

    release.open();
    await server.chat.turns.sideWorkOf(threadId);
    const turnId = (await server.repos.turns.latest(USER, threadId))?.id ?? "";
    const rows = await server.repos.llmCalls.forTurn(USER, turnId);
    expect(rows.map((r) => r.operation).sort()).toEqual(["summarizer", "turn"]);
    const text = await metrics.registry.metrics();
    expect(text).toContain(summarizerSeries);
    expect(text).toContain(
      `agentwire_tokens_total{provider="scripted",model="${MODEL}",operation="summarizer",kind="input"} 500`,
    );
    const body = ThreadUsage.parse(await (await server.fetch(`/api/threads/${threadId}/usage`)).json());
    expect(body.by_operation.map((e) => [e.operation, e.llm_calls]).sort()).toEqual([
      ["summarizer", 1],
      ["turn", 1],
    ]);
  });
});

import { defineTool, type ProviderRequest } from "@agentwire-chat/agents";
import type { ScriptedStep } from "@agentwire-chat/agents/testing";
import type { ServerFrame } from "@agentwire-chat/protocol";
import {
  type ChatTestServer,
  expectWellFormedTurn,
  gate,
  isDone,
  startChatServer,
} from "@agentwire-chat/testkit/chat-harness";
import { echoTool } from "@agentwire-chat/testkit/test-tools";
import { type HrTime, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentwireMetrics, createTurnTracer, type TurnObserver, turnObserverOf } from "../../src/index.js";
import { finalRow, threadOf } from "../chat/turn-helpers.js";

let server: ChatTestServer | undefined;
let provider: BasicTracerProvider | undefined;
afterEach(async () => {
  await server?.close();
  await provider?.shutdown();
  server = undefined;
  provider = undefined;
});

/** Resolves when a span matching a predicate ends (the turn's span ends after its last frame is sent). */
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

/** An SDK tracer whose finished spans land in memory. */
function inMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const ended = new EndedSpans();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), ended] });
  return { tracer: provider.getTracer("agentwire-test"), exporter, ended };
}

const ms = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;
const attr = (s: ReadableSpan, key: string) => s.attributes[key];
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const isRoot = (s: ReadableSpan) => s.name === "invoke_agent agentwire";

const failing = defineTool({
  name: "flaky",
  description: "fails on purpose",
  args: z.object({}),
  permissionClass: "safe",
  execute: async () => ({ type: "result", output: "boom", isError: true }),
});

/** The subtask a request comes from (its first user message), or undefined at the root. */
function subtaskOf(request: ProviderRequest): string | undefined {
  const first = request.messages[0];
  return first?.role === "user" && typeof first.content === "string" && first.content.startsWith("sub:")
    ? first.content
    : undefined;
}
const hasToolResult = (request: ProviderRequest) => request.messages.some((m) => m.role === "tool");

describe("turn traces", () => {
  it("trace a parallel-subtask turn as the execution tree: turn → calls → subtasks → their calls", async () => {
    const { tracer, exporter, ended } = inMemoryTracing();
    // Each subtask's first model call waits until the other's has started: they can only finish
    // if they run at the same time. The short delay gives them a measurable duration in ms.
    const aStarted = gate();
    const bStarted = gate();
    const respond = (request: ProviderRequest): ScriptedStep => {
      const sub = subtaskOf(request);
      if (sub === "sub:A") {
        if (hasToolResult(request)) return { text: "A done", usage: { inputTokens: 30, outputTokens: 3 } };
        aStarted.open();
        return {
          delayMs: 5,
          gate: bStarted.promise,
          toolCalls: [{ id: "echo_a", name: "echo", args: { text: "a" } }],
          usage: { inputTokens: 20, outputTokens: 2 },
        };
      }
      if (sub === "sub:B") {
        if (hasToolResult(request)) return { text: "B done", usage: { inputTokens: 50, outputTokens: 5 } };
        bStarted.open();
        return {
          delayMs: 5,
          gate: aStarted.promise,
          toolCalls: [{ id: "flaky_b", name: "flaky", args: {} }],
          usage: { inputTokens: 40, outputTokens: 4 },
        };
      }
      return hasToolResult(request)
        ? { text: "All done", usage: { inputTokens: 200, outputTokens: 20 } }
        : {
            text: "Splitting.",
            toolCalls: [
              { id: "sub_a", name: "run_subtask", args: { title: "Task A", instructions: "sub:A" } },
              { id: "sub_b", name: "run_subtask", args: { title: "Task B", instructions: "sub:B" } },
            ],
            usage: { inputTokens: 100, outputTokens: 10 },
          };
    };
    server = await startChatServer(respond, { extraTools: [echoTool(), failing] });
    server.chat.observeTurn = createTurnTracer(tracer);
    const client = await server.connect();
    client.command("chat_message", { content: "do both" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    await ended.until(isRoot);
    const threadId = threadOf(frames);
    const turnId = (await server.repos.turns.latest("local", threadId))?.id;
    const usage = frames.find((f): f is Extract<ServerFrame, { type: "usage" }> => f.type === "usage");
    const tree = finalRow(frames).execution_tree;
    expect(tree?.nodes).toHaveLength(4);

    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [idOf(s), s]));
    const parent = (s: ReadableSpan) => byId.get(parentOf(s) ?? "");
    // One trace, one root; every span carries the turn's identity.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const roots = spans.filter((s) => parentOf(s) === undefined);
    expect(roots.map((s) => s.name)).toEqual(["invoke_agent agentwire"]);
    const root = roots[0] as ReadableSpan;
    for (const s of spans) {
      expect(attr(s, "agentwire.thread_id")).toBe(threadId);
      expect(attr(s, "agentwire.turn_id")).toBe(turnId);
      expect(s.ended).toBe(true);
      // A child lies within its parent's time.
      const p = parent(s);
      if (p) {
        expect(ms(s.startTime)).toBeGreaterThanOrEqual(ms(p.startTime));
        expect(ms(s.endTime)).toBeLessThanOrEqual(ms(p.endTime));
      }
    }
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "scripted-1",
      "gen_ai.conversation.id": threadId,
      "agentwire.turn.status": "complete",
      "gen_ai.usage.input_tokens": usage?.input_tokens,
      "gen_ai.usage.output_tokens": usage?.output_tokens,
    });
    expect(usage).toMatchObject({ input_tokens: 440, output_tokens: 44 });
    expect(root.status.code).toBe(SpanStatusCode.UNSET);

    // Tool spans: one per stored tree node, hanging where the tree says.
    const toolSpan = (id: string) => {
      const found = spans.filter((s) => attr(s, "gen_ai.tool.call.id") === id);
      expect(found, id).toHaveLength(1);
      return found[0] as ReadableSpan;
    };
    const subtaskUnder = (callId: string) => {
      const found = spans.filter(
        (s) => s.name === "invoke_agent subtask" && parentOf(s) === idOf(toolSpan(callId)),
      );
      expect(found, callId).toHaveLength(1);
      return found[0] as ReadableSpan;
    };
    for (const node of tree?.nodes ?? []) {
      const span = toolSpan(node.id);
      expect(span.name).toBe(`execute_tool ${node.name}`);
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": node.name,
        "agentwire.depth": node.parent_id === null ? 0 : 1,
      });
      expect(parentOf(span)).toBe(node.parent_id === null ? idOf(root) : idOf(subtaskUnder(node.parent_id)));
      expect(span.status.code).toBe(node.is_error ? SpanStatusCode.ERROR : SpanStatusCode.UNSET);
    }
    expect(toolSpan("flaky_b").status.code).toBe(SpanStatusCode.ERROR);
    expect(attr(toolSpan("flaky_b"), "error.type")).toBe("tool_error");

    // Subtask spans: depth 1, their own model and tool calls beneath, their tokens summed.
    const subA = subtaskUnder("sub_a");
    const subB = subtaskUnder("sub_b");
    for (const [sub, tokens] of [
      [subA, [50, 5]],
      [subB, [90, 9]],
    ] as const) {
      expect(sub.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "agentwire.depth": 1,
        "gen_ai.usage.input_tokens": tokens[0],
        "gen_ai.usage.output_tokens": tokens[1],
      });
    }
    // Parallel siblings overlap in time, and so do their gated first model calls.
    const overlap = (a: ReadableSpan, b: ReadableSpan) =>
      ms(a.startTime) < ms(b.endTime) && ms(b.startTime) < ms(a.endTime);
    expect(overlap(subA, subB)).toBe(true);

    // Model calls: two at the root and two in each subtask, each with its own usage.
    const chats = spans.filter((s) => attr(s, "gen_ai.operation.name") === "chat");
    const tokensUnder = (p: ReadableSpan) =>
      chats
        .filter((s) => parentOf(s) === idOf(p))
        .map((s) => [attr(s, "gen_ai.usage.input_tokens"), attr(s, "gen_ai.usage.output_tokens")]);
    expect(tokensUnder(root)).toEqual([
      [100, 10],
      [200, 20],
    ]);
    expect(tokensUnder(subA)).toEqual([
      [20, 2],
      [30, 3],
    ]);
    expect(tokensUnder(subB)).toEqual([
      [40, 4],
      [50, 5],
    ]);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.name).toBe("chat scripted-1");
      expect(chat.attributes).toMatchObject({
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted-1",
        "agentwire.depth": parentOf(chat) === idOf(root) ? 0 : 1,
      });
    }
    const [firstA, firstB] = [subA, subB].map(
      (s) => chats.find((c) => parentOf(c) === idOf(s)) as ReadableSpan,
    );
    expect(overlap(firstA as ReadableSpan, firstB as ReadableSpan)).toBe(true);
    // Nothing but the turn, 6 model calls, 4 tool calls and 2 subtasks.
    expect(spans).toHaveLength(1 + 6 + 4 + 2);
  });

  it("marks a failed model call and its turn ERROR with only the kind of error", async () => {
    const { tracer, exporter, ended } = inMemoryTracing();
    server = await startChatServer([{ text: "partial", error: "upstream said: key sk-secret is bad" }]);
    server.chat.observeTurn = createTurnTracer(tracer);
    const client = await server.connect();
    client.command("chat_message", { content: "hi" });
    await client.collectUntil(isDone);
    await ended.until(isRoot);
    const spans = exporter.getFinishedSpans();
    const root = spans.find(isRoot);
    const chat = spans.find((s) => s.name === "chat scripted-1");
    expect(root?.attributes).toMatchObject({ "agentwire.turn.status": "error", "error.type": "error" });
    expect(root?.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat?.attributes["error.type"]).toBe("provider_error");
    expect(chat?.status).toEqual({ code: SpanStatusCode.ERROR, message: "provider_error" });
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.status, s.events]))).not.toContain("sk-secret");
  });

  it("traces a turn that waits on the user as two segments of the same turn", async () => {
    const { tracer, exporter, ended } = inMemoryTracing();
    const respond = (request: ProviderRequest): ScriptedStep => {
      const answered = hasToolResult(request);
      if (subtaskOf(request) === "sub:ask") {
        return answered
          ? { text: "child got it" }
          : { toolCalls: [{ id: "ask_1", name: "ask_user", args: { question: "Which color?" } }] };
      }
      return answered
        ? { text: "final" }
        : {
            toolCalls: [
              { id: "sub_1", name: "run_subtask", args: { title: "Ask", instructions: "sub:ask" } },
            ],
          };
    };
    server = await startChatServer(respond);
    server.chat.observeTurn = createTurnTracer(tracer);
    const client = await server.connect();
    client.command("chat_message", { content: "pick a color" });
    const head = await client.collectUntil((f) => f.type === "question");
    const threadId = threadOf(head);
    await ended.until((s) => isRoot(s) && s.attributes["agentwire.turn.status"] === "waiting_user");
    client.command("answer", { thread_id: threadId, tool_call_id: "ask_1", answer: "blue" });
    await client.collectUntil(isDone);
    await ended.until((s) => isRoot(s) && s.attributes["agentwire.turn.status"] === "complete");

    const spans = exporter.getFinishedSpans();
    const roots = spans.filter(isRoot);
    expect(
      roots.map((r) => [r.attributes["agentwire.turn.resumed"], r.attributes["agentwire.turn.status"]]),
    ).toEqual([
      [false, "waiting_user"],
      [true, "complete"],
    ]);
    expect(new Set(roots.map((r) => r.attributes["agentwire.turn_id"])).size).toBe(1);
    const [first, second] = roots as [ReadableSpan, ReadableSpan];
    const inTrace = (r: ReadableSpan) =>
      spans.filter((s) => s.spanContext().traceId === r.spanContext().traceId);
    // The pending call closes with its segment and is marked unfinished; the answer's segment
    // reopens the subtask and closes the call, under the same parent ids as the tree.
    const ask1 = inTrace(first).find((s) => s.attributes["gen_ai.tool.call.id"] === "ask_1");
    expect(ask1?.attributes["agentwire.unfinished"]).toBe(true);
    const later = inTrace(second);
    const ask2 = later.find((s) => s.attributes["gen_ai.tool.call.id"] === "ask_1");
    const sub = later.find((s) => s.name === "invoke_agent subtask");
    const subCall = later.find((s) => s.attributes["gen_ai.tool.call.id"] === "sub_1");
    expect(ask2?.attributes).toMatchObject({
      "agentwire.turn.resumed": true,
      "agentwire.parent_id": "sub_1",
    });
    expect(ask2 && parentOf(ask2)).toBe(sub && idOf(sub));
    expect(sub && parentOf(sub)).toBe(subCall && idOf(subCall));
    expect(subCall && parentOf(subCall)).toBe(idOf(second));
    const childChat = later.find(
      (s) => s.name === "chat scripted-1" && s.attributes["agentwire.depth"] === 1,
    );
    expect(childChat && parentOf(childChat)).toBe(sub && idOf(sub));
  });

  it("makes nothing per turn when tracing is off: the process observer is used as is", async () => {
    const metrics = new AgentwireMetrics({
      openSockets: () => 0,
      turns: () => ({ running: 0, suspended: 0 }),
    });
    const turn = { threadId: "t", turnId: "u", provider: "p", model: "m", resumed: false };
    expect(turnObserverOf({ observer: metrics }, turn)).toBe(metrics);
    expect(turnObserverOf({}, turn)).toBeUndefined();

    // On: each segment gets its own observer, fed alongside the metrics.
    const { tracer, exporter } = inMemoryTracing();
    const seen: string[] = [];
    const counting: TurnObserver = {
      llmCall: () => seen.push("llm"),
      event: () => {},
      turnEnded: (status) => seen.push(status),
    };
    const observer = turnObserverOf({ observer: counting, observeTurn: createTurnTracer(tracer) }, turn);
    expect(observer).not.toBe(counting);
    observer?.turnEnded("complete");
    expect(seen).toEqual(["complete"]);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(["invoke_agent agentwire"]);
  });
});

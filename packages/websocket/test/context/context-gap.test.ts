/**
 * Issue 36 item 2: no message may fall between the summary and what a call sends verbatim. Through
 * the real socket and the real `openai` client against a local Chat Completions server, with the
 * context settings read from the environment as the process reads them.
 */
import { createProviderRegistry } from "@agentwire-chat/agents";
import type { ServerFrame, ServerFrameOf } from "@agentwire-chat/protocol";
import { isDone } from "@agentwire-chat/testkit/chat-harness";
import { startTestServer, type TestClient, type TestServer } from "@agentwire-chat/testkit/harness";
import {
  type Completion,
  type OpenAIMock,
  seen,
  startOpenAIMock,
} from "@agentwire-chat/testkit/openai-sse-mock";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { createChatServices } from "../../src/index.js";
import { seedThread } from "./context-fixtures.js";

let mock: OpenAIMock | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await mock?.close();
  server = undefined;
  mock = undefined;
});

/** A real server whose provider is the mock and whose context settings come from `env`. */
async function startServer(m: OpenAIMock, env: Record<string, string>): Promise<TestServer> {
  const config = loadConfig({
    OPENAI_COMPAT_ENDPOINTS: `mock=${m.url}/v1`,
    PROVIDER_MAX_RETRIES: "0",
    LOG_LEVEL: "silent",
    ...env,
  });
  const providers = createProviderRegistry(config.providers);
  const chat = createChatServices({
    providers,
    defaults: { provider: "mock", model: "mock-1" },
    context: config.context,
  });
  return startTestServer({ services: { chat } });
}

const WAITING = "waiting for the summary of the older messages";
const isSummarizer = (c: Completion) => JSON.stringify(c.body.messages[0]).includes("rolling summary");
const markers = (text: string) => new Set(text.match(/u-\d+/g) ?? []);
const usageOf = (frames: ServerFrame[]) =>
  frames.filter((f): f is ServerFrameOf<"context_usage"> => f.type === "context_usage");

/** Answers a summarizer call with a summary naming every user marker it was given (old summary and messages). */
async function summarize(c: Completion): Promise<void> {
  await c.text(
    JSON.stringify({ summary: `the user said ${[...markers(JSON.stringify(c.body.messages))].join(" ")}` }),
  );
  await c.finish();
}

/** Sends one message and returns the turn's frames; the first turn makes the thread. */
async function turn(client: TestClient, content: string, threadId?: string): Promise<ServerFrame[]> {
  client.command("chat_message", { content, ...(threadId && { thread_id: threadId }) });
  return client.collectUntil(isDone, 60_000);
}

describe("no context hole while the summarizer works", () => {
  it("a slow summarizer and fast turns: every earlier user message is in each call, verbatim or in its summary", async () => {
    // The summarizer answers only once the next turn has read its context: when that turn's model call
    // arrives (it did not need the summary) or the turn says it waits for it. So no summary is ever
    // ready in time, the slowest a summarizer can be without the turns timing out on it.
    let waiting = false;
    const held: (() => void)[] = [];
    const releaseHeld = () => {
      for (const release of held.splice(0)) release();
    };
    const turnCalls: Completion[] = [];
    mock = await startOpenAIMock(async (c) => {
      if (isSummarizer(c)) {
        if (!waiting) await new Promise<void>((resolve) => held.push(resolve));
        return summarize(c);
      }
      waiting = false;
      turnCalls.push(c);
      releaseHeld();
      await c.text(`ok ${turnCalls.length}`);
      await c.finish();
    });
    server = await startServer(mock, { CONTEXT_MAX_MESSAGES: "6", CONTEXT_VERBATIM_MESSAGES: "2" });
    // The log is the one outside sign that a turn waits: watch its lines as they are written.
    const logs = server.logs;
    const push = logs.push.bind(logs);
    logs.push = (...lines: string[]) => {
      if (lines.some((l) => l.includes(WAITING))) {
        waiting = true;
        releaseHeld();
      }
      return push(...lines);
    };

    const client = await server.connect();
    const TURNS = 10;
    let threadId: string | undefined;
    const usage: ServerFrameOf<"context_usage">[] = [];
    for (let k = 1; k <= TURNS; k++) {
      const frames = await turn(client, `u-${k}`, threadId);
      threadId ??= frames.find((f) => f.type === "thread")?.thread_id;
      expect(frames.some((f) => f.type === "error")).toBe(false);
      usage.push(...usageOf(frames));
    }
    client.close();

    expect(turnCalls).toHaveLength(TURNS);
    for (const [i, call] of turnCalls.entries()) {
      const system = call.body.messages.filter((m) => m.role === "system" || m.role === "developer");
      const history = call.body.messages.filter((m) => m.role !== "system" && m.role !== "developer");
      // Within the budget of 6 history messages...
      expect(history.length).toBeLessThanOrEqual(6);
      // ...and nothing between the summary and the verbatim messages: every earlier user message is in one.
      const sent = new Set([...markers(JSON.stringify(system)), ...markers(JSON.stringify(history))]);
      for (let j = 1; j <= i + 1; j++) expect(sent, `call ${i + 1} lacks u-${j}`).toContain(`u-${j}`);
      expect(JSON.stringify(history.at(-1))).toContain(`u-${i + 1}`);
    }
    expect(usage).toHaveLength(TURNS);
    for (const frame of usage) expect(frame.messages_dropped).toBe(0);
    expect(JSON.stringify(turnCalls.at(-1)?.body.messages[0])).toContain("the user said u-1 ");
    // Summarizing starts past 3/4 of the budget (5 messages, turn 3) and leaves 2 verbatim; turns 4, 6, 8
    // and 10 would have left messages out without the running summarizer's summary, and waited for it.
    expect(logs.filter((l) => l.includes(WAITING))).toHaveLength(4);
    expect(usage.map((u) => u.messages_summarized)).toEqual([0, 0, 0, 3, 3, 7, 7, 11, 11, 15]);
  });

  it("a failing summarizer leaves the turn with what fits, and context_usage counts what is left out", async () => {
    const turnCalls: Completion[] = [];
    mock = await startOpenAIMock(async (c) => {
      if (isSummarizer(c)) return c.cut();
      turnCalls.push(c);
      await c.text("ok");
      await c.finish();
    });
    server = await startServer(mock, { CONTEXT_MAX_MESSAGES: "6", CONTEXT_VERBATIM_MESSAGES: "2" });
    const client = await server.connect();
    let threadId: string | undefined;
    const dropped: (number | undefined)[] = [];
    for (let k = 1; k <= 5; k++) {
      const frames = await turn(client, `u-${k}`, threadId);
      threadId ??= frames.find((f) => f.type === "thread")?.thread_id;
      dropped.push(...usageOf(frames).map((f) => f.messages_dropped));
      // The turn still answers, complete.
      const final = frames.filter((f) => f.type === "message").at(-1) as ServerFrameOf<"message">;
      expect(final.message).toMatchObject({ role: "assistant", content: "ok", status: "complete" });
    }
    client.close();
    // Turn 4 holds 7 messages and turn 5 9, over a budget of 6: 1 and 3 are left out.
    expect(dropped).toEqual([0, 0, 0, 1, 3]);
    const fifth = JSON.stringify(turnCalls[4]?.body.messages);
    expect([...markers(fifth)].sort()).toEqual(["u-3", "u-4", "u-5"]);
    expect(server.logs.some((l) => l.includes("no summary covers the older messages"))).toBe(true);
  });

  it("SUMMARIZER_TIMEOUT_MS bounds the wait: the turn then sends what fits", async () => {
    const TIMEOUT = 1_500;
    let sent = 0;
    let called = 0;
    const summarizers: Completion[] = [];
    mock = await startOpenAIMock(async (c) => {
      if (isSummarizer(c)) {
        summarizers.push(c);
        return c.aborted; // never answers
      }
      called = performance.now();
      await c.text("ok");
      await c.finish();
    });
    server = await startServer(mock, {
      CONTEXT_MAX_MESSAGES: "6",
      SUMMARIZER_TIMEOUT_MS: String(TIMEOUT),
    });
    // 8 stored rows and the new message: 9 over a budget of 6, and no summary.
    const { threadId } = await seedThread(server, 2);
    const client = await server.connect();
    sent = performance.now();
    client.command("chat_message", { content: "u-now", thread_id: threadId });
    await seen(client, (f) => f.type === "context_usage", "context_usage", 60_000);
    const frames = await client.collectUntil(isDone, 60_000);
    client.close();
    // The turn waited for the summarizer it started, for SUMMARIZER_TIMEOUT_MS and not much longer.
    expect(summarizers).toHaveLength(1);
    await summarizers[0]?.aborted;
    expect(called - sent).toBeGreaterThanOrEqual(TIMEOUT - 5);
    expect(called - sent).toBeLessThan(TIMEOUT + 20_000);
    // The 6 newest (from "answer a-000", the 4th row) are sent; the 3 before them are left out.
    expect(usageOf(frames)[0]).toMatchObject({
      messages_dropped: 3,
      messages_verbatim: 6,
      messages_summarized: 0,
    });
    expect(frames.filter((f) => f.type === "message").at(-1)).toMatchObject({
      message: { content: "ok", status: "complete" },
    });
  });

  it("the user's stop ends the wait at once: no model call, the turn stopped, the summarizer ended", async () => {
    const turnCalls: Completion[] = [];
    mock = await startOpenAIMock(async (c) => {
      if (isSummarizer(c)) return c.aborted; // never answers
      turnCalls.push(c);
      await c.text("ok");
      await c.finish();
    });
    server = await startServer(mock, { CONTEXT_MAX_MESSAGES: "6" });
    const { threadId } = await seedThread(server, 2);
    const client = await server.connect();
    client.command("chat_message", { content: "u-now", thread_id: threadId });
    // The summarizer the turn started and waits for has been asked: the turn is waiting.
    const summarizer = await mock.arrived(1);
    expect(isSummarizer(summarizer)).toBe(true);
    client.command("stop", { thread_id: threadId });
    const frames = await client.collectUntil(isDone, 60_000);
    client.close();
    await summarizer.aborted;
    expect(frames.some((f) => f.type === "generation_stopped")).toBe(true);
    expect(turnCalls).toHaveLength(0);
    expect(mock.completions).toHaveLength(1);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("stopped");
  });
});

/**
 * Issue 13, defect 2: a provider that sends its headers (and maybe an event) and then nothing must not
 * hold the turn until the wall clock. The real SDK clients against a real local server that stalls.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Provider, ProviderEvent } from "../../src/index.js";
import { createProviderRegistry, providerRegistryConfigFromEnv } from "../../src/index.js";
import { collect, ofType, request, textOf } from "./helpers/collect.js";
import {
  chatSse,
  type MockLlmServer,
  messagesSse,
  type Reply,
  startMockLlmServer,
} from "./helpers/mock-llm-server.js";
import { anthropicAt, openaiAt } from "./helpers/providers.js";
import { completed, responsesAt, responsesSse, textEvents } from "./helpers/responses-wire.js";

const IDLE_MS = 300;

/** Sends headers and `prefix`, then nothing; `closed` resolves when the request's socket closes. */
function stall(prefix: string): { reply: Reply; closed: Promise<void> } {
  let onClose = () => {};
  const closed = new Promise<void>((resolve) => {
    onClose = resolve;
  });
  const reply: Reply = (res) => {
    res.socket?.once("close", onClose);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.flushHeaders();
    if (prefix) res.write(prefix);
  };
  return { reply, closed };
}

/** Sends the whole body a chunk at a time, each `gapMs` after the last (a slow but live provider). */
function trickle(chunks: string[], gapMs: number): Reply {
  return (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    const send = (i: number) => {
      if (i === chunks.length) return res.end();
      res.write(chunks[i]);
      setTimeout(() => send(i + 1), gapMs);
    };
    send(0);
  };
}

type Dialect = {
  name: string;
  make(url: string, maxRetries: number): Provider;
  /** An event that releases nothing to the consumer (the provider is known to be answering). */
  silentStart: string;
  /** The opening events and one text delta "first". */
  firstText: string;
  /** A whole answer "fine", as chunks. */
  ok: string[];
};

const oaText = (t: string) => ({
  id: "c",
  choices: [{ index: 0, delta: { content: t }, finish_reason: null }],
});
const oaRole = { id: "c", choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] };
const oaStop = { id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };

const anStart = {
  type: "message_start",
  message: { id: "m", usage: { input_tokens: 10, output_tokens: 1 } },
};
const anBlock = { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } };
const anDelta = (t: string) => ({
  type: "content_block_delta",
  index: 0,
  delta: { type: "text_delta", text: t },
});
const anEnd = [
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
  { type: "message_stop" },
];

const rsCreated = { type: "response.created", response: { id: "resp_1", status: "in_progress" } };
const rsDelta = (t: string) => textEvents(t)[1]!;

const dialects: Dialect[] = [
  {
    name: "openai",
    make: (url, maxRetries) => openaiAt(url, { maxRetries, idleTimeoutMs: IDLE_MS }),
    silentStart: chatSse([oaRole], { done: false }),
    firstText: chatSse([oaRole, oaText("first")], { done: false }),
    ok: [chatSse([oaRole, oaText("fi")], { done: false }), chatSse([oaText("ne"), oaStop])],
  },
  {
    name: "anthropic",
    make: (url, maxRetries) => anthropicAt(url, { maxRetries, idleTimeoutMs: IDLE_MS }),
    silentStart: messagesSse([anStart]),
    firstText: messagesSse([anStart, anBlock, anDelta("first")]),
    ok: [messagesSse([anStart, anBlock, anDelta("fi")]), messagesSse([anDelta("ne"), ...anEnd])],
  },
  {
    name: "openai-responses",
    make: (url, maxRetries) => responsesAt(url, { maxRetries, idleTimeoutMs: IDLE_MS }),
    silentStart: responsesSse([rsCreated]),
    firstText: responsesSse([rsCreated, ...textEvents("first")]),
    ok: [responsesSse([rsCreated, ...textEvents("fi")]), responsesSse([rsDelta("ne"), completed()])],
  },
];

// A server per test: a reply left queued by a failing test must not answer the next test's request.
let server: MockLlmServer;
beforeEach(async () => {
  server = await startMockLlmServer();
});
afterEach(() => server.close());

/** Splits an SSE body into its events, each with its blank line. */
function eventsOf(body: string): string[] {
  return body
    .split("\n\n")
    .filter(Boolean)
    .map((e) => `${e}\n\n`);
}

/** The events of one stalled call: one error saying so, then the error finish. */
function expectStallFailure(events: ProviderEvent[], attempts = 1): void {
  const errors = ofType(events, "error");
  expect(errors).toHaveLength(1);
  expect(errors[0]?.error).toMatchObject({ stalled: true, beforeStream: false });
  const stalled = "the provider stalled: it sent nothing for 300 ms, so the request was aborted";
  if (attempts === 1) expect(errors[0]?.error.message).toBe(stalled);
  else {
    // A retried call names the whole wait, not only one attempt's.
    const match = /^(.*); that was attempt 2 of 2 \(each stalled the same way\), (\d+) ms in all$/.exec(
      errors[0]?.error.message ?? "",
    );
    expect(match?.[1]).toBe(stalled);
    expect(Number(match?.[2])).toBeGreaterThanOrEqual(2 * IDLE_MS - 40);
  }
  expect(events.at(-1)).toEqual({ type: "finish", reason: "error" });
}

describe.each(dialects)("$name adapter: a provider that stalls", (d) => {
  it("headers and then nothing: the call fails as stalled and the upstream request is aborted", async () => {
    const stalled = stall("");
    server.reply(stalled.reply);
    const started = Date.now();
    const events = await collect(d.make(server.url, 0), request());
    const elapsed = Date.now() - started;
    expect(events).toHaveLength(2);
    expectStallFailure(events);
    // It waited for the idle timeout, not for ever (the wall clock of a turn is minutes).
    expect(elapsed).toBeGreaterThanOrEqual(IDLE_MS - 20);
    expect(elapsed).toBeLessThan(10_000);
    await stalled.closed; // the server saw the request's socket close
    expect(server.requests.length).toBe(1); // maxRetries 0: no second attempt
  });

  it("a stall before anything was released is made once more, and the second attempt answers", async () => {
    const stalled = stall(d.silentStart);
    server.reply(stalled.reply, trickle(d.ok, 0));
    const events = await collect(d.make(server.url, 2), request());
    expect(ofType(events, "error")).toEqual([]);
    expect(textOf(events)).toBe("fine");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(server.requests.length).toBe(2);
    await stalled.closed;
  });

  it("a provider that stalls on every attempt is tried twice at most, then fails as stalled", async () => {
    const first = stall("");
    const second = stall(d.silentStart);
    server.reply(first.reply, second.reply);
    const events = await collect(d.make(server.url, 5), request());
    expect(events).toHaveLength(2);
    expectStallFailure(events, 2);
    expect(server.requests.length).toBe(2);
    await Promise.all([first.closed, second.closed]);
  });

  it("after text was released a stall is the call's error: no second attempt", async () => {
    const stalled = stall(d.firstText);
    server.reply(stalled.reply);
    const events = await collect(d.make(server.url, 2), request());
    expect(events[0]).toEqual({ type: "text-delta", text: "first" });
    expect(events).toHaveLength(3);
    expectStallFailure(events);
    await stalled.closed;
    expect(server.requests.length).toBe(1);
  });

  it("a slow provider whose every gap is shorter than the idle timeout is not a stall", async () => {
    const gapMs = IDLE_MS / 4;
    // Keep-alive comments alone, for longer than the idle timeout, then the answer an event at a time.
    const chunks = [...Array(6).fill(": keep-alive\n\n"), ...d.ok.flatMap(eventsOf)];
    server.reply(trickle(chunks, gapMs));
    const events = await collect(d.make(server.url, 0), request());
    expect(ofType(events, "error")).toEqual([]);
    expect(textOf(events)).toBe("fine");
  });

  it("cancelling a stalled call ends it at once with no event and aborts the request", async () => {
    const stalled = stall(d.silentStart);
    server.reply(stalled.reply);
    const controller = new AbortController();
    const done = collect(d.make(server.url, 2), request(), controller.signal);
    await server.requestArrived(1);
    controller.abort();
    expect(await done).toEqual([]);
    await stalled.closed;
    expect(server.requests.length).toBe(1);
  });
});

describe("PROVIDER_IDLE_TIMEOUT_MS", () => {
  it("is read from the environment (default 60000) and reaches every configured provider", async () => {
    expect(providerRegistryConfigFromEnv({}).idleTimeoutMs).toBe(60_000);
    expect(() => providerRegistryConfigFromEnv({ PROVIDER_IDLE_TIMEOUT_MS: "0" })).toThrow();
    const config = providerRegistryConfigFromEnv({
      OPENAI_COMPAT_ENDPOINTS: `local=${server.url}/v1`,
      PROVIDER_MAX_RETRIES: "0",
      PROVIDER_IDLE_TIMEOUT_MS: String(IDLE_MS),
    });
    expect(config.idleTimeoutMs).toBe(IDLE_MS);
    const provider = createProviderRegistry(config).get("local");
    if (!provider) throw new Error("no provider");
    const stalled = stall("");
    server.reply(stalled.reply);
    expectStallFailure(await collect(provider, request()));
    await stalled.closed;
  });
});

/**
 * Issue 13, defect 2, through the real server: a provider that sends its headers and then nothing ends
 * the turn with `provider_error` after PROVIDER_IDLE_TIMEOUT_MS instead of holding it to the wall clock.
 * The provider is the real `openai` client (an OPENAI_COMPAT_ENDPOINTS entry, configured from the
 * environment as the server is) against a local HTTP server that stalls.
 */
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createProviderRegistry } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { expectWellFormedTurn, isDone } from "@agentwire-chat/testkit/chat-harness";
import { startTestServer, type TestServer } from "@agentwire-chat/testkit/harness";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../apps/server/src/config.js";
import { createChatServices } from "../../src/index.js";
import { storedMessages, threadOf } from "./turn-helpers.js";

const IDLE_MS = 300;

/** A Chat Completions server whose every response sends headers and `prefix`, then nothing. */
type StallingProvider = {
  url: string;
  /** One entry per request: resolves when that request's socket closes. */
  socketsClosed: Promise<void>[];
  close(): Promise<void>;
};

async function startStallingProvider(prefix: string): Promise<StallingProvider> {
  const socketsClosed: Promise<void>[] = [];
  const server: Server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.once("end", () => {
      const socket = res.socket;
      if (!socket) throw new Error("no socket");
      socketsClosed.push(once(socket, "close").then(() => {}));
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      if (prefix) res.write(prefix);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    socketsClosed,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const chunk = (delta: object) =>
  `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

let provider: StallingProvider | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await provider?.close();
  server = provider = undefined;
});

/** The real server with one provider, `stall`, configured from the environment like the process. */
async function startServerFor(stalling: StallingProvider): Promise<TestServer> {
  const config = loadConfig({
    OPENAI_COMPAT_ENDPOINTS: `stall=${stalling.url}/v1`,
    PROVIDER_IDLE_TIMEOUT_MS: String(IDLE_MS),
    LOG_LEVEL: "silent",
  });
  expect(config.providers.idleTimeoutMs).toBe(IDLE_MS);
  const providers = createProviderRegistry(config.providers);
  const chat = createChatServices({ providers, defaults: { provider: "stall", model: "m" } });
  return startTestServer({ services: { chat } });
}

const errorOf = (frames: ServerFrame[]) => frames.find((f) => f.type === "error");

describe("a provider that stalls after its headers", () => {
  it("ends the turn with provider_error after one more attempt, aborts both requests, and the socket goes on", async () => {
    provider = await startStallingProvider(chunk({ role: "assistant" }));
    server = await startServerFor(provider);
    const client = await server.connect();
    client.command("chat_message", { content: "hello?" }, "r1");
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(errorOf(frames)).toMatchObject({ type: "error", code: "provider_error" });
    const message = String(errorOf(frames)?.message);
    expect(message).toContain("the provider stalled: it sent nothing for 300 ms");
    // The whole wait is named: two attempts of 300 ms each, not "300 ms" alone.
    const total = Number(/attempt 2 of 2 \(each stalled the same way\), (\d+) ms in all$/.exec(message)?.[1]);
    expect(total).toBeGreaterThanOrEqual(2 * IDLE_MS);
    expect(frames.some((f) => f.type === "chunk" && !f.done)).toBe(false);
    // Nothing had been released, so the call was made once more; both requests were aborted.
    expect(provider.socketsClosed).toHaveLength(2);
    await Promise.all(provider.socketsClosed);

    const threadId = threadOf(frames);
    const turn = await server.repos.turns.latest("local", threadId);
    expect(turn?.status).toBe("error");
    expect(turn?.endedAt).not.toBeNull();
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.content, r.status])).toEqual([
      ["user", "hello?", "complete"],
      ["assistant", "", "error"],
    ]);
    const calls = await server.repos.llmCalls.forTurn("local", turn?.id ?? "");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.error).toContain("stalled");
    await client.ping();
  });

  it("after text reached the client, a stall ends the turn at once: no second attempt, the partial answer stored", async () => {
    provider = await startStallingProvider(chunk({ role: "assistant" }) + chunk({ content: "partial" }));
    server = await startServerFor(provider);
    const client = await server.connect();
    client.command("chat_message", { content: "hello?" });
    const frames = await client.collectUntil(isDone);
    expectWellFormedTurn(frames);
    expect(frames.find((f) => f.type === "chunk" && !f.done)).toMatchObject({ content: "partial" });
    expect(errorOf(frames)).toMatchObject({ code: "provider_error" });
    expect(provider.socketsClosed).toHaveLength(1);
    await Promise.all(provider.socketsClosed);

    const threadId = threadOf(frames);
    expect((await server.repos.turns.latest("local", threadId))?.status).toBe("error");
    const rows = await storedMessages(server, threadId);
    expect(rows.map((r) => [r.role, r.content, r.status])).toEqual([
      ["user", "hello?", "complete"],
      ["assistant", "partial", "error"],
    ]);
    await client.ping();
  });
});

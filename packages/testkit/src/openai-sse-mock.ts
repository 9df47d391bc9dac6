/**
 * A local OpenAI-compatible Chat Completions server speaking the real SSE format, scripted per
 * request, and a chat server whose only provider is the real `openai` client pointed at it (an
 * OPENAI_COMPAT_ENDPOINTS entry, configured from the environment as the process is).
 */
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createProviderRegistry, type Tool } from "@agentwire-chat/agents";
import type { ServerFrame } from "@agentwire-chat/protocol";
import { loadConfig } from "@agentwire-chat/server";
import { createChatServices } from "@agentwire-chat/websocket";
import {
  startTestServer,
  type TestClient,
  type TestServer,
  type TestServerOptions,
  withTimeout,
} from "./harness.js";

type ChatMessage = { role: string; content?: unknown; tool_call_id?: string };

/** One streamed completion the mock is answering: what was asked, and a writer for the answer. */
export type Completion = {
  /** The parsed request body. */
  body: { model: string; stream?: boolean; messages: ChatMessage[] };
  /** The text of the request's last user message (a subtask's instructions, or the user's message). */
  lastUser: string;
  /** How many tool results the request carries. */
  toolResults: number;
  /** Writes each delta as its own SSE event, all in one socket write; resolves once written. */
  text(...deltas: string[]): Promise<void>;
  /** Writes raw SSE `data:` payloads (objects are JSON-encoded) in one write. */
  data(...payloads: (object | string)[]): Promise<void>;
  /** Streams tool calls (each whole in one delta). */
  toolCalls(calls: { id: string; name: string; args: object }[]): Promise<void>;
  /** The finish chunk, `[DONE]`, and the end of the body. */
  finish(reason?: string): Promise<void>;
  /** Destroys the connection mid-body. */
  cut(): void;
  /** Resolves when the client closed this request's connection before the body ended (an abort). */
  aborted: Promise<void>;
  /** True once `aborted` has resolved. */
  wasAborted(): boolean;
};

export type OpenAIMock = {
  url: string;
  /** Every completion request, in arrival order. */
  completions: Completion[];
  /** Resolves when the n-th (1-based) completion request has arrived. */
  arrived(n: number): Promise<Completion>;
  /** What a script threw (its connection was cut then, so the turn ends instead of hanging). */
  failures: unknown[];
  close(): Promise<void>;
};

const chunkOf = (delta: object, finishReason: string | null = null) => ({
  id: "chatcmpl-mock",
  object: "chat.completion.chunk",
  created: 1,
  model: "mock-1",
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

/** Starts the mock; `answer` scripts each completion (it may stream for as long as it likes). */
export async function startOpenAIMock(
  answer: (completion: Completion) => Promise<void> | void,
): Promise<OpenAIMock> {
  const completions: Completion[] = [];
  const waiters: { n: number; resolve: (c: Completion) => void }[] = [];
  const failures: unknown[] = [];
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `mock: no route ${req.url}`, type: "not_found" } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Completion["body"];
    const completion = completionFor(body, res);
    completions.push(completion);
    for (const w of waiters.filter((w) => w.n === completions.length)) w.resolve(completion);
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    res.flushHeaders();
    try {
      await answer(completion);
    } catch (error) {
      failures.push(error);
      completion.cut();
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    completions,
    failures,
    arrived: (n) =>
      completions[n - 1]
        ? Promise.resolve(completions[n - 1] as Completion)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function completionFor(body: Completion["body"], res: ServerResponse): Completion {
  let aborted = false;
  const abortedPromise = new Promise<void>((resolve) => {
    res.once("close", () => {
      if (res.writableEnded) return;
      aborted = true;
      resolve();
    });
  });
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (res.destroyed || res.writableEnded) {
        resolve();
        return;
      }
      res.write(text, () => resolve());
    });
  const events = (payloads: (object | string)[]) =>
    payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("");
  const users = body.messages.filter((m) => m.role === "user");
  return {
    body,
    lastUser: textOf(users.at(-1)?.content),
    toolResults: body.messages.filter((m) => m.role === "tool").length,
    text: (...deltas) => write(events(deltas.map((content) => chunkOf({ content })))),
    data: (...payloads) => write(events(payloads)),
    toolCalls: (calls) =>
      write(
        events(
          calls.map((c, index) =>
            chunkOf({
              tool_calls: [
                {
                  index,
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                },
              ],
            }),
          ),
        ),
      ),
    finish: async (reason = "stop") => {
      await write(events([chunkOf({}, reason), "[DONE]"]));
      if (!res.destroyed) res.end();
    },
    cut: () => res.socket?.destroy(),
    aborted: abortedPromise,
    wasAborted: () => aborted,
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p?.text === "string" ? (p.text as string) : "")).join("");
  }
  return "";
}

/** The real server with one provider, `mock`, configured from the environment like the process. */
export async function startOpenAIChatServer(
  mock: OpenAIMock,
  options: {
    env?: Record<string, string>;
    serverLimits?: TestServerOptions["limits"];
    /** Tools added to the base server tools (ask_user, run_subtask). */
    extraTools?: Tool[];
  } = {},
): Promise<TestServer> {
  const config = loadConfig({
    OPENAI_COMPAT_ENDPOINTS: `mock=${mock.url}/v1`,
    PROVIDER_MAX_RETRIES: "0",
    LOG_LEVEL: "silent",
    ...options.env,
  });
  const providers = createProviderRegistry(config.providers);
  const defaults = { provider: "mock", model: "mock-1" };
  const base = createChatServices({ providers, defaults });
  const extra = options.extraTools ?? [];
  const chat = createChatServices({
    providers,
    defaults,
    serverTools: async (scope) => [...(await base.serverTools(scope)), ...extra],
  });
  return startTestServer({
    services: { chat },
    ...(options.serverLimits && { limits: options.serverLimits }),
  });
}

/** A chunk frame as the server sends it (with its seq, and `seq_start` when merged). */
export type ChunkFrame = Extract<ServerFrame, { type: "chunk" }> & { seq: number; seq_start?: number };

/** The text chunks (not the final `done`) of some frames. */
export function textChunks(frames: readonly ServerFrame[]): ChunkFrame[] {
  return frames.filter((f): f is ChunkFrame => f.type === "chunk" && f.done !== true);
}

/**
 * The first frame `client` received (already, or from now on) that matches; event-driven, for a
 * script that waits until the client saw what it sent. Rejects when the socket closes first.
 */
export function seen(
  client: TestClient,
  match: (frame: ServerFrame) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<ServerFrame> {
  const found = client.received.find(match);
  if (found) return Promise.resolve(found);
  let off = () => {};
  const arrival = new Promise<ServerFrame>((resolve, reject) => {
    const onMessage = () => {
      const last = client.received.at(-1);
      if (last && match(last)) {
        off();
        resolve(last);
      }
    };
    const onClose = () => {
      off();
      reject(new Error(`socket closed before ${what}`));
    };
    off = () => {
      client.ws.off("message", onMessage);
      client.ws.off("close", onClose);
    };
    client.ws.on("message", onMessage);
    client.ws.once("close", onClose);
  });
  return withTimeout(arrival, timeoutMs, what, () => off());
}

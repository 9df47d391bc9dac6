import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the mock received. */
export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
  /** Resolves when the client side of this request's connection goes away. */
  closed: Promise<void>;
};

/** Answers one request; the response is the reply's to finish (or never finish). */
export type Reply = (res: ServerResponse, req: RecordedRequest) => void | Promise<void>;

/** A real HTTP server on an ephemeral port answering queued replies in order. */
export type MockLlmServer = {
  url: string;
  requests: RecordedRequest[];
  /** Queues replies for the next requests, in order. */
  reply(...replies: Reply[]): void;
  /** Resolves when the n-th request (1-based) has arrived. */
  requestArrived(n: number): Promise<RecordedRequest>;
  close(): Promise<void>;
};

/** Starts a mock provider server on 127.0.0.1 with an ephemeral port. */
export async function startMockLlmServer(): Promise<MockLlmServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: { n: number; resolve: (r: RecordedRequest) => void }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: text ? safeJson(text) : undefined,
      closed,
    };
    requests.push(recorded);
    for (const w of waiters.filter((w) => w.n === requests.length)) w.resolve(recorded);
    const next = queue.shift();
    if (!next) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "mock: no reply queued", type: "server_error" } }));
      return;
    }
    await next(res, recorded);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    requestArrived: (n) =>
      requests[n - 1]
        ? Promise.resolve(requests[n - 1]!)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Replies with an SSE body, byte for byte. */
export function sse(body: string, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...headers,
    });
    res.end(body);
  };
}

/** Replies with a JSON (or any text) body and status. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
}

/** Replies with a raw body of any content type. */
export function raw(status: number, body: string, contentType: string): Reply {
  return (res) => {
    res.writeHead(status, { "content-type": contentType });
    res.end(body);
  };
}

/** Sends part of an SSE body, then destroys the socket (a connection cut mid-stream). */
export function sseThenCut(prefix: string, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(200, { "content-type": "text/event-stream", ...headers });
    res.write(prefix, () => res.socket?.destroy());
  };
}

/** Sends part of an SSE body and keeps the connection open until the client leaves. */
export function sseThenHold(prefix: string, sent?: () => void): Reply {
  return (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(prefix, () => sent?.());
  };
}

/** Never answers (not even headers). */
export function hang(): Reply {
  return () => {};
}

/** Frames JSON objects as Chat Completions SSE `data:` lines, with `[DONE]` unless told otherwise. */
export function chatSse(chunks: unknown[], opts: { done?: boolean; comments?: boolean } = {}): string {
  const lines = chunks.map((c) => `${opts.comments ? ": keep-alive\n\n" : ""}data: ${JSON.stringify(c)}\n\n`);
  return lines.join("") + (opts.done === false ? "" : "data: [DONE]\n\n");
}

/** Frames Messages events as SSE with `event:` names taken from their `type`. */
export function messagesSse(events: { type: string }[]): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

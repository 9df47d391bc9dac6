import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { type FetchLike, requestedDelayMs } from "./bounded-retry-fetch.js";
import { providerFetch } from "./idle-timeout-fetch.js";

/**
 * The `fetch` a provider's SDK client is built with, over node:http with one keep-alive agent per
 * provider, plus a side door to a streaming response's node body. The SDK still builds the request,
 * signs it, retries it and turns a failed status into its own error class; a stream that succeeded is
 * read by the provider from the node body directly (`takeBody`), one `data` event per network read,
 * instead of through web streams and the SDK's chain of async iterators (most of a chunk's cost).
 */
export class HttpTransport {
  private readonly http = new HttpAgent({ keepAlive: true });
  private readonly https = new HttpsAgent({ keepAlive: true });
  private readonly bodies = new WeakMap<Response, IncomingMessage>();

  /** @param maxRetryDelayMs a retry-after longer than this is not waited for (`x-should-retry: false`). */
  constructor(private readonly maxRetryDelayMs: number) {}

  /** Fetch for the SDK: plain string bodies go over node:http, anything else to the global fetch. */
  readonly fetch: FetchLike = (input, init) => {
    const body = init?.body;
    if (input instanceof Request || (body !== undefined && body !== null && typeof body !== "string")) {
      return fetch(input, init);
    }
    return this.send(input instanceof URL ? input : new URL(input), init ?? {}, body ?? undefined);
  };

  /**
   * The node body of a successful event stream this transport fetched, handed out once (the web
   * `body` of the same response then stays unread); undefined for any other response.
   */
  takeBody(response: Response): IncomingMessage | undefined {
    const body = this.bodies.get(response);
    this.bodies.delete(response);
    return body;
  }

  /** Closes the idle keep-alive sockets. */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private send(url: URL, init: RequestInit, body: string | undefined): Promise<Response> {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(abortError(signal.reason));
    const https = url.protocol === "https:";
    const headers = headerRecord(init.headers);
    // The node client does not decompress; streamed tokens gain nothing from it anyway.
    headers["accept-encoding"] = "identity";
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)(url, {
        method: init.method ?? "GET",
        headers,
        agent: https ? this.https : this.http,
      });
      let response: IncomingMessage | undefined;
      // One listener for the whole exchange: past the response the abort still reaches the body.
      const onAbort = () => {
        const error = abortError(signal?.reason);
        (response ?? req).destroy(error);
        reject(error);
      };
      const done = () => signal?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (error) => {
        done();
        reject(signal?.aborted ? abortError(signal.reason) : new TypeError("fetch failed", { cause: error }));
      });
      req.on("response", (res) => {
        response = res;
        res.once("close", done);
        this.respond(url, res).then(resolve, reject);
      });
      req.end(body);
    });
  }

  private async respond(url: URL, res: IncomingMessage): Promise<Response> {
    const status = res.statusCode ?? 500;
    const headers = new Headers();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
    const ok = status >= 200 && status < 300;
    if (!ok) {
      const delay = requestedDelayMs(headers);
      if (delay !== undefined && delay > this.maxRetryDelayMs) headers.set("x-should-retry", "false");
    }
    const init = { status, statusText: res.statusMessage ?? "", headers };
    let response: Response;
    if (ok && (headers.get("content-type") ?? "").includes("text/event-stream")) {
      response = new Response(
        lazyWebBody(res, () => this.bodies.delete(response)),
        init,
      );
      this.bodies.set(response, res);
    } else {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      const empty = status === 204 || status === 304 || chunks.length === 0;
      response = new Response(empty ? null : Buffer.concat(chunks), init);
    }
    // The SDKs log the URL of a response; a constructed Response has none of its own.
    Object.defineProperty(response, "url", { value: url.href });
    return response;
  }
}

/** A web stream over the node body that starts reading only when someone reads it. */
function lazyWebBody(res: IncomingMessage, onRead: () => void): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!iterator) {
          onRead();
          iterator = res[Symbol.asyncIterator]();
        }
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value));
      },
      cancel: (reason) => {
        res.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [key, value] of headers as Iterable<[string, string]>) out[key.toLowerCase()] = value;
  } else {
    for (const [key, value] of Object.entries(headers)) out[key.toLowerCase()] = String(value);
  }
  return out;
}

/** What fetch rejects with when its signal aborts: the SDKs recognise it by its name. */
function abortError(reason: unknown): Error {
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("This operation was aborted", "AbortError");
}

/**
 * The fetch a provider's SDK client is built with: the transport's, unless a fetch was given (tests,
 * proxies), which gets the idle-timeout and retry-wait wrappers and is read as web streams.
 */
export function providerTransport(options: {
  maxRetryDelayMs: number;
  idleTimeoutMs?: number | undefined;
  fetch?: FetchLike | undefined;
}): { transport: HttpTransport | undefined; fetch: FetchLike } {
  if (options.fetch) return { transport: undefined, fetch: providerFetch(options) };
  const transport = new HttpTransport(options.maxRetryDelayMs);
  return { transport, fetch: transport.fetch };
}

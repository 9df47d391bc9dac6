import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import type { Checked } from "../workspace/confine-path.js";
import { BlockedAddressError, guardedLookup, type Resolver } from "./ssrf-guard.js";

/** One HTTP exchange: a redirect target, or a status with a bounded, decoded body. */
export type Hop =
  | { kind: "redirect"; status: number; location: string }
  | { kind: "response"; status: number; contentType: string; body: Buffer };

/** What one hop needs: the resolver, whether the host is operator-allowed, limits, the abort signal. */
export type HopOptions = {
  resolve: Resolver;
  allowAnyAddress: boolean;
  connectTimeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
  /** The Accept header: web_fetch prefers text, http.get takes anything. */
  accept: string;
  /** Extra request headers (a search API's key); the fixed ones above win over a clash. */
  headers?: Readonly<Record<string, string>>;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Performs one GET with the guarded lookup; never follows redirects itself (guarded-get.ts does). */
export function fetchOnce(url: URL, opts: HopOptions): Promise<Checked<Hop>> {
  return new Promise((settle) => {
    let done = false;
    const finish = (result: Checked<Hop>) => {
      if (done) return;
      done = true;
      clearTimeout(connectTimer);
      settle(result);
    };
    let connectTimer: NodeJS.Timeout | undefined;
    const request = url.protocol === "https:" ? https.request : http.request;
    const req = request(url, {
      method: "GET",
      // A fresh agent per hop: a pooled socket would skip the lookup (and its check) for a new request.
      agent: false,
      lookup: guardedLookup(opts.resolve, opts.allowAnyAddress),
      signal: opts.signal,
      headers: {
        ...opts.headers,
        "user-agent": "agentwire/0.1",
        accept: opts.accept,
        "accept-encoding": "gzip, deflate, br",
      },
    });
    req.on("socket", (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => req.destroy(new Error(`connect timed out after ${opts.connectTimeoutMs} ms`)),
        opts.connectTimeoutMs,
      );
      socket.once("connect", () => clearTimeout(connectTimer));
    });
    req.on("error", (err) => finish({ ok: false, reason: describeRequestError(err, url) }));
    req.on("response", (res) => {
      clearTimeout(connectTimer);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy();
        finish({ ok: true, value: { kind: "redirect", status, location } });
        return;
      }
      readBounded(res, opts.maxBytes).then(
        (body) => {
          if (!body.ok) res.destroy();
          finish(
            body.ok
              ? {
                  ok: true,
                  value: { kind: "response", status, contentType: contentTypeOf(res), body: body.value },
                }
              : body,
          );
        },
        (err: unknown) => finish({ ok: false, reason: describeRequestError(err, url) }),
      );
    });
    req.end();
  });
}

function contentTypeOf(res: IncomingMessage): string {
  return String(res.headers["content-type"] ?? "").toLowerCase();
}

/** Reads the body, decompressing it, refusing as soon as either the wire or the decoded size passes the cap. */
async function readBounded(res: IncomingMessage, maxBytes: number): Promise<Checked<Buffer>> {
  const tooBig: Checked<Buffer> = { ok: false, reason: `response body exceeds ${maxBytes} bytes` };
  const declared = Number(res.headers["content-length"] ?? Number.NaN);
  if (declared > maxBytes) return tooBig;
  const encoding = String(res.headers["content-encoding"] ?? "identity")
    .toLowerCase()
    .trim();
  let stream: Readable = res;
  const decoder = decoderFor(encoding);
  if (decoder === null)
    return { ok: false, reason: `unsupported content-encoding: ${encoding.slice(0, 40)}` };
  let wire = 0;
  if (decoder) {
    res.on("data", (chunk: Buffer) => {
      wire += chunk.length;
      if (wire > maxBytes) decoder.destroy(new RangeError("wire cap"));
    });
    res.on("error", (err) => decoder.destroy(err));
    stream = res.pipe(decoder);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        decoder?.destroy();
        return tooBig;
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof RangeError) return tooBig;
    if (decoder && !(err instanceof Error && err.name === "AbortError")) {
      return { ok: false, reason: `could not decode the ${encoding} response body` };
    }
    throw err;
  }
  return { ok: true, value: Buffer.concat(chunks) };
}

/** A zlib stream for the encoding; undefined for identity, null when unsupported. */
function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined | null {
  switch (encoding) {
    case "":
    case "identity":
      return undefined;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

/** A model-facing reason for a failed request. */
function describeRequestError(err: unknown, url: URL): string {
  if (err instanceof BlockedAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException & { cause?: unknown };
  if (e?.name === "AbortError") {
    return (e.cause as { name?: string } | undefined)?.name === "TimeoutError"
      ? "the request timed out"
      : "the request was cancelled";
  }
  if (e?.cause instanceof BlockedAddressError) return `refused: ${e.cause.message}`;
  switch (e?.code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `could not resolve host ${url.hostname}`;
    case "ECONNREFUSED":
      return `connection refused by ${url.host}`;
    case "ECONNRESET":
      return `connection reset by ${url.host}`;
    default:
      return e instanceof Error && /timed out/.test(e.message)
        ? e.message
        : `request to ${url.host} failed${e?.code ? ` (${e.code})` : ""}`;
  }
}

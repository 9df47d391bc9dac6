import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import {
  classifyAddress,
  guardedLookup,
  type Resolver,
  systemResolver,
} from "../../tools/builtin/web/ssrf-guard.js";

/** Limits and the operator allow-list of a guarded GET. */
export type GuardedGetOptions = {
  /** Hostnames (or IP literals) exempt from the address check, e.g. an intranet API the operator trusts. */
  allowHosts?: readonly string[];
  resolver?: Resolver;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
};

/** A fetched response, or why there is none. */
export type GuardedGetResult =
  | { ok: true; status: number; contentType: string; body: string; url: string }
  | { ok: false; error: string };

const DEFAULTS = { maxBytes: 2 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 3 };

/**
 * GET through the SSRF guard (the same address rules as web_fetch): every connection, redirects
 * included, resolves through `guardedLookup`, and IP-literal hosts — which node:http connects to
 * without a lookup — are classified directly.
 */
export async function guardedGet(
  rawUrl: string,
  signal: AbortSignal,
  options: GuardedGetOptions = {},
): Promise<GuardedGetResult> {
  const limits = { ...DEFAULTS, ...options };
  const allow = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  const timeout = AbortSignal.any([signal, AbortSignal.timeout(limits.timeoutMs)]);
  let url = rawUrl;
  for (let hop = 0; hop <= limits.maxRedirects; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, error: `invalid URL "${url}"` };
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return { ok: false, error: `only http and https URLs are allowed, got ${parsed.protocol}` };
    }
    if (parsed.username || parsed.password) return { ok: false, error: "URLs with credentials are refused" };
    const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const allowed = allow.has(host);
    if (!allowed && isIP(host) !== 0) {
      const verdict = classifyAddress(host);
      if (!verdict.allowed) return { ok: false, error: `refused: ${verdict.reason}` };
    }
    const res = await request(
      parsed,
      timeout,
      guardedLookup(options.resolver ?? systemResolver, allowed),
      limits,
    );
    if (!res.ok) {
      if (timeout.aborted && !signal.aborted) {
        return { ok: false, error: `no response within ${limits.timeoutMs} ms` };
      }
      return res;
    }
    if (res.status >= 300 && res.status < 400 && res.location) {
      url = new URL(res.location, parsed).toString();
      continue;
    }
    if (res.status < 200 || res.status >= 300)
      return { ok: false, error: `HTTP ${res.status} from ${parsed.host}` };
    return { ok: true, status: res.status, contentType: res.contentType, body: res.body, url };
  }
  return { ok: false, error: `more than ${limits.maxRedirects} redirects` };
}

type RawResponse =
  | { ok: true; status: number; contentType: string; body: string; location?: string }
  | { ok: false; error: string };

function request(
  url: URL,
  signal: AbortSignal,
  lookup: ReturnType<typeof guardedLookup>,
  limits: { maxBytes: number },
): Promise<RawResponse> {
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const req = lib.get(url, { signal, lookup: lookup as never, headers: { accept: "*/*" } }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400) {
        res.resume();
        resolve({ ok: true, status, contentType: "", body: "", ...(location !== undefined && { location }) });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          resolve({ ok: false, error: `response exceeds ${limits.maxBytes} bytes` });
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () =>
        resolve({
          ok: true,
          status,
          contentType: String(res.headers["content-type"] ?? ""),
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", (err) => resolve({ ok: false, error: describe(err) }));
    });
    req.on("error", (err) => resolve({ ok: false, error: describe(err) }));
  });
}

function describe(err: Error): string {
  if (err.name === "AbortError") return "request aborted";
  return err.message ? `request failed: ${err.message}` : "request failed";
}

import { isIP } from "node:net";
import type { Checked } from "../workspace/confine-path.js";
import { fetchOnce } from "./fetch-once.js";
import { classifyAddress, type Resolver, systemResolver } from "./ssrf-guard.js";

/** Options of the guarded GET client; web_fetch and the workflow node http.get take the same ones. */
export type GuardedGetOptions = {
  /** Hosts exempt from the address check (intranet, tests): `name`, `name:port`, `1.2.3.4:80`, `[::1]:8080`. */
  allowHosts?: readonly string[];
  timeouts?: { connectMs?: number; totalMs?: number };
  /** Cap on the response body, compressed and decompressed (default 2 MiB). */
  maxBytes?: number;
  /** Redirects followed before giving up (default 5); every hop is checked again. */
  maxRedirects?: number;
  /** Injectable resolver (tests); used for the connect-time lookup too. */
  resolve?: Resolver;
};

/** The final response of a guarded GET: any status, with its body read within the cap. */
export type GuardedResponse = { url: string; status: number; contentType: string; body: Buffer };

/**
 * A GET through the SSRF guard; refusals and failures are reasons, never exceptions. `headers` (an API
 * key) go to the first URL's origin only: a redirect to another origin is made without them.
 */
export type GuardedGet = (
  url: string,
  signal: AbortSignal,
  accept?: string,
  headers?: Readonly<Record<string, string>>,
) => Promise<Checked<GuardedResponse>>;

type AllowEntry = { hostname: string; port: string | null };

/**
 * The one SSRF-guarded HTTP client. Each hop checks the URL (scheme, credentials, IP literals), then
 * connects through `guardedLookup`, so the address checked is the address connected to; redirects are
 * followed by hand, at most `maxRedirects`, each hop checked again; the body is read up to `maxBytes`.
 * Throws on an invalid `allowHosts` entry (an operator mistake, found at start-up).
 */
export function createGuardedGet(options: GuardedGetOptions = {}): GuardedGet {
  const resolve = options.resolve ?? systemResolver;
  const connectMs = options.timeouts?.connectMs ?? 10_000;
  const totalMs = options.timeouts?.totalMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const allow = (options.allowHosts ?? []).map(parseAllowEntry);

  return async (url, signal, accept = "*/*", headers) => {
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      return { ok: false, reason: "not a valid absolute URL" };
    }
    const origin = current.origin;
    const timeout = AbortSignal.timeout(totalMs);
    const both = AbortSignal.any([signal, timeout]);
    for (let hop = 0; ; hop++) {
      const refuse = (reason: string): Checked<GuardedResponse> => ({
        ok: false,
        reason: hop === 0 ? reason : `redirect to ${describeTarget(current)}: ${reason}`,
      });
      const check = checkUrl(current, allow);
      if (!check.ok) return refuse(check.reason);
      const res = await fetchOnce(current, {
        resolve,
        allowAnyAddress: check.value,
        connectTimeoutMs: connectMs,
        maxBytes,
        signal: both,
        accept,
        ...(headers && current.origin === origin && { headers }),
      });
      if (!res.ok) return refuse(timeout.aborted ? `the request timed out after ${totalMs} ms` : res.reason);
      const value = res.value;
      if (value.kind === "response") {
        const { status, contentType, body } = value;
        return { ok: true, value: { url: current.href, status, contentType, body } };
      }
      if (hop >= maxRedirects) return { ok: false, reason: `too many redirects (more than ${maxRedirects})` };
      try {
        current = new URL(value.location, current);
      } catch {
        return refuse(`redirect ${value.status} has an invalid Location`);
      }
    }
  };
}

/** Where a redirect pointed: scheme and host only, never credentials, path or query. */
function describeTarget(url: URL): string {
  const web = url.protocol === "http:" || url.protocol === "https:";
  return web ? `${url.protocol}//${url.host}` : `a ${url.protocol.slice(0, 20)} URL`;
}

/** Normalises an allowHosts entry the way URLs are normalised, so `0x7f.1:80` matches `127.0.0.1:80`. */
function parseAllowEntry(entry: string): AllowEntry {
  const trimmed = entry.trim().toLowerCase();
  const bareIpv6 = !trimmed.startsWith("[") && (trimmed.match(/:/g)?.length ?? 0) > 1;
  const m = bareIpv6 ? null : /^(.*):(\d{1,5})$/.exec(trimmed);
  const host = bareIpv6 ? `[${trimmed}]` : (m?.[1] ?? trimmed);
  try {
    return { hostname: new URL(`http://${host}/`).hostname, port: m?.[2] ?? null };
  } catch {
    throw new TypeError(`guarded GET: invalid allowHosts entry ${JSON.stringify(entry)}`);
  }
}

/** Scheme, credentials and literal-address checks; ok(true) when the host is operator-allowed. */
function checkUrl(url: URL, allow: readonly AllowEntry[]): Checked<boolean> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `only http and https URLs are allowed (got ${url.protocol.slice(0, 20)})` };
  }
  if (url.username || url.password)
    return { ok: false, reason: "URLs with credentials (user:pass@) are not allowed" };
  if (!url.hostname) return { ok: false, reason: "URL has no host" };
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  if (allow.some((a) => a.hostname === url.hostname && (a.port === null || a.port === port))) {
    return { ok: true, value: true };
  }
  // IP literals never reach the lookup (Node connects to them directly), so they are checked here.
  const bare = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(bare) !== 0) {
    const verdict = classifyAddress(bare);
    if (!verdict.allowed) return { ok: false, reason: `refused: ${verdict.reason}` };
  }
  return { ok: true, value: false };
}

/** The body as text, in the declared charset when the runtime knows it, else UTF-8. */
export function bodyText(response: Pick<GuardedResponse, "body" | "contentType">): string {
  const charset = /charset="?([\w-]+)/i.exec(response.contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(response.body);
  } catch {
    return new TextDecoder("utf-8").decode(response.body);
  }
}

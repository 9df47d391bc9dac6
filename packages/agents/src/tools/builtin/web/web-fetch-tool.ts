import { isIP } from "node:net";
import { z } from "zod";
import { defineTool, ok, toolError } from "../../define-tool.js";
import type { Tool } from "../../tool.js";
import type { Checked } from "../workspace/confine-path.js";
import { fetchOnce } from "./fetch-once.js";
import { htmlToText } from "./html-to-text.js";
import { classifyAddress, type Resolver, systemResolver } from "./ssrf-guard.js";

// Argument schemas at module level: built once, their JSON Schema is converted once (defineTool caches it).
const WebFetchArgs = z.object({ url: z.string().max(8192) });

/** Options of createWebFetchTool. */
export type WebFetchOptions = {
  /** Hosts exempt from the address check (intranet, tests): `name`, `name:port`, `1.2.3.4:80`, `[::1]:8080`. */
  allowHosts?: readonly string[];
  timeouts?: { connectMs?: number; totalMs?: number };
  /** Cap on the response body, compressed and decompressed (default 2 MiB). */
  maxBytes?: number;
  /** Cap on the text returned to the model (default 100,000 characters). */
  maxTextChars?: number;
  /** Injectable resolver (tests); used for the connect-time lookup too. */
  resolve?: Resolver;
};

const MAX_REDIRECTS = 5;
const TEXTUAL = /^(text\/|application\/(json|xml|javascript|ld\+json|[a-z.+-]*\+(json|xml))\b)/;

/** The web_fetch tool: http(s) GET with SSRF checks at connect time on every hop, returning readable text. */
export function createWebFetchTool(options: WebFetchOptions = {}): Tool {
  const resolve = options.resolve ?? systemResolver;
  const connectMs = options.timeouts?.connectMs ?? 10_000;
  const totalMs = options.timeouts?.totalMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const maxTextChars = options.maxTextChars ?? 100_000;
  const allow = (options.allowHosts ?? []).map(parseAllowEntry);

  return defineTool({
    name: "web_fetch",
    description:
      "Fetch a public http(s) URL and return its readable text (HTML is reduced to text). Private and local addresses are refused.",
    args: WebFetchArgs,
    permissionClass: "network",
    execute: async ({ url }, ctx) => {
      let current: URL;
      try {
        current = new URL(url);
      } catch {
        return toolError("not a valid absolute URL");
      }
      const timeout = AbortSignal.timeout(totalMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      for (let hop = 0; ; hop++) {
        const check = checkUrl(current, allow);
        if (!check.ok)
          return toolError(
            hop === 0 ? check.reason : `redirect to ${current.origin} refused: ${check.reason}`,
          );
        const res = await fetchOnce(current, {
          resolve,
          allowAnyAddress: check.value,
          connectTimeoutMs: connectMs,
          maxBytes,
          signal,
        });
        if (!res.ok) {
          return toolError(timeout.aborted ? `the request timed out after ${totalMs} ms` : res.reason);
        }
        const value = res.value;
        if (value.kind === "redirect") {
          if (hop >= MAX_REDIRECTS) return toolError(`too many redirects (more than ${MAX_REDIRECTS})`);
          try {
            current = new URL(value.location, current);
          } catch {
            return toolError(`redirect ${value.status} has an invalid Location`);
          }
          continue;
        }
        const type = value.contentType.split(";")[0]?.trim() ?? "";
        const isHtml = type === "text/html" || type === "application/xhtml+xml";
        if (!isHtml && !TEXTUAL.test(type) && !(type === "" && !value.body.includes(0))) {
          return toolError(`unsupported content type ${type.slice(0, 80)}: web_fetch returns text only`);
        }
        const decoded = decodeBody(value.body, value.contentType);
        const { text, truncated } = isHtml
          ? htmlToText(decoded, maxTextChars)
          : { text: decoded.slice(0, maxTextChars), truncated: decoded.length > maxTextChars };
        if (value.status < 200 || value.status > 299) {
          return toolError(`HTTP ${value.status} from ${current.origin}: ${text.slice(0, 500)}`);
        }
        return ok({ url: current.href, status: value.status, contentType: type, text, truncated });
      }
    },
  });
}

type AllowEntry = { hostname: string; port: string | null };

/** Normalises an allowHosts entry the way URLs are normalised, so `0x7f.1:80` matches `127.0.0.1:80`. */
function parseAllowEntry(entry: string): AllowEntry {
  const trimmed = entry.trim().toLowerCase();
  const bareIpv6 = !trimmed.startsWith("[") && (trimmed.match(/:/g)?.length ?? 0) > 1;
  const m = bareIpv6 ? null : /^(.*):(\d{1,5})$/.exec(trimmed);
  const host = bareIpv6 ? `[${trimmed}]` : (m?.[1] ?? trimmed);
  try {
    return { hostname: new URL(`http://${host}/`).hostname, port: m?.[2] ?? null };
  } catch {
    throw new TypeError(`createWebFetchTool: invalid allowHosts entry ${JSON.stringify(entry)}`);
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

/** Decodes with the declared charset when the runtime knows it, else UTF-8. */
function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

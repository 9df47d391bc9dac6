import { z } from "zod";
import { defineTool, ok, toolError } from "../../define-tool.js";
import type { Tool } from "../../tool.js";
import { createSearchBackend } from "./create-search-backend.js";
import { bodyText, createGuardedGet, type GuardedGetOptions } from "./guarded-get.js";
import type { SearchBackend, WebSearchBackendConfig } from "./search-backend.js";
import { toSearchResults } from "./search-result-text.js";

/** The tool's name, reserved from client UI tools by the server. */
export const WEB_SEARCH = "web_search";

/** Default and largest `limit` of web_search. */
export const WEB_SEARCH_LIMITS = { default: 5, max: 20 } as const;

const WebSearchArgs = z.object({
  query: z.string().trim().min(1).max(400),
  limit: z.number().int().min(1).max(WEB_SEARCH_LIMITS.max).optional(),
});

/** Options of createWebSearchTool: the backend, and the guarded client's limits (not its allow-list). */
export type WebSearchOptions = {
  backend: WebSearchBackendConfig;
  timeouts?: GuardedGetOptions["timeouts"];
  /** Cap on the backend's response body (default 1 MiB). */
  maxBytes?: number;
  /** Injectable resolver (tests). */
  resolve?: GuardedGetOptions["resolve"];
};

/**
 * The web_search tool: one GET to the configured backend through the guarded client web_fetch uses.
 * The backend's own host:port is trusted explicitly (a self-hosted SearXNG usually sits on a private
 * address): the operator named it, the model only chooses the query. A redirect away from it is checked
 * like any web_fetch hop and made without the API key; result URLs are returned, never fetched here.
 */
export function createWebSearchTool(options: WebSearchOptions): Tool {
  const backend = createSearchBackend(options.backend);
  const get = createGuardedGet({
    allowHosts: [trustedHost(backend)],
    maxBytes: options.maxBytes ?? 1024 * 1024,
    maxRedirects: 3,
    ...(options.timeouts && { timeouts: options.timeouts }),
    ...(options.resolve && { resolve: options.resolve }),
  });
  const fail = (message: string) => toolError(redact(message, backend.secrets));

  return defineTool({
    name: WEB_SEARCH,
    description: `Search the web (${backend.name}). Returns up to \`limit\` results (default ${WEB_SEARCH_LIMITS.default}, at most ${WEB_SEARCH_LIMITS.max}) as {title, url, snippet}; use web_fetch to read a page.`,
    args: WebSearchArgs,
    permissionClass: "network",
    execute: async ({ query, limit = WEB_SEARCH_LIMITS.default }, ctx) => {
      const request = backend.request(query, limit);
      const res = await get(request.url.href, ctx.signal, "application/json", request.headers);
      const from = `the search backend (${backend.name})`;
      if (!res.ok) return fail(`${from} could not be reached: ${res.reason}`);
      const { status } = res.value;
      if (status < 200 || status > 299)
        return fail(`${from} answered HTTP ${status}${statusHint(backend, status)}`);
      let json: unknown;
      try {
        json = JSON.parse(bodyText(res.value));
      } catch {
        return fail(`${from} sent a response that is not JSON`);
      }
      const hits = backend.parse(json);
      if (!hits.ok) return fail(`${from} sent an unexpected response: ${hits.reason}`);
      const results = toSearchResults(hits.value, backend.markup, limit).map((r) => ({
        title: redact(r.title, backend.secrets),
        url: redact(r.url, backend.secrets),
        snippet: redact(r.snippet, backend.secrets),
      }));
      return ok({ backend: backend.name, query, results });
    },
  });
}

/** The backend's host:port, as an allowHosts entry (the port spelled out: only that service is trusted). */
function trustedHost(backend: SearchBackend): string {
  const url = backend.request("probe", 1).url;
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

/** What an operator can do about a status, when the cause is well known. */
function statusHint(backend: SearchBackend, status: number): string {
  if (backend.name === "searxng" && status === 403) {
    return " (is `json` listed under search.formats in its settings.yml?)";
  }
  if (backend.name === "brave" && (status === 401 || status === 403)) return " (check the API key)";
  if (status === 429) return " (rate limited; try again later)";
  return "";
}

/** The text with every secret value replaced, so a backend echoing the key cannot leak it. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}

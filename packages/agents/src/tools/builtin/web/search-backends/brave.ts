import type { SearchBackend } from "../search-backend.js";
import { endpoint, hitsOf, text } from "./read-hits.js";

const BRAVE_API = "https://api.search.brave.com";

/**
 * Brave Search API: `GET /res/v1/web/search?q=…&count=…` with the key in `X-Subscription-Token`,
 * answered with `{type: "search", web?: {results: [{title, url, description, …}]}}` (`web` is absent
 * when nothing matched). Descriptions carry `<strong>` highlights; the tool reduces them to text.
 */
export function braveBackend(apiKey: string, base: string = BRAVE_API): SearchBackend {
  return {
    name: "brave",
    markup: "html",
    secrets: [apiKey],
    request(query, limit) {
      const url = endpoint(base, "res/v1/web/search");
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(limit));
      return { url, headers: { "x-subscription-token": apiKey } };
    },
    parse(body) {
      if (body === null || typeof body !== "object" || Array.isArray(body)) {
        return { ok: false, reason: "the JSON is not an object" };
      }
      const web = (body as { web?: unknown }).web;
      if (web === undefined) return { ok: true, value: [] };
      const results = (web as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) return { ok: false, reason: "the JSON has no web.results list" };
      const hits = hitsOf(results, (r) => {
        const url = text(r.url);
        return url === undefined ? undefined : { url, title: text(r.title), snippet: text(r.description) };
      });
      return { ok: true, value: hits };
    },
  };
}

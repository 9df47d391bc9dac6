import type { SearchBackend } from "../search-backend.js";
import { endpoint, hitsOf, text } from "./read-hits.js";

/**
 * A self-hosted SearXNG: `GET <base>/search?q=…&format=json`, answered with `{results: [{title, url,
 * content, …}]}`. The instance returns one page (about 20 hits) whatever the limit; the tool cuts it.
 */
export function searxngBackend(base: string): SearchBackend {
  return {
    name: "searxng",
    markup: "text",
    secrets: [],
    request(query) {
      const url = endpoint(base, "search");
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      return { url };
    },
    parse(body) {
      const results = (body as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) return { ok: false, reason: "the JSON has no results list" };
      const hits = hitsOf(results, (r) => {
        const url = text(r.url);
        return url === undefined ? undefined : { url, title: text(r.title), snippet: text(r.content) };
      });
      return { ok: true, value: hits };
    },
  };
}

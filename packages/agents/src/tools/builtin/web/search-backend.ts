import { z } from "zod";
import type { Checked } from "../workspace/confine-path.js";

const HttpUrl = z.url({ protocol: /^https?$/ });

/** The operator's search backend (WEB_SEARCH_BACKEND, WEB_SEARCH_URL, WEB_SEARCH_API_KEY). */
export const WebSearchBackendConfig = z.discriminatedUnion("backend", [
  /** A self-hosted SearXNG: its base URL (the JSON format must be enabled in its settings.yml). */
  z.object({ backend: z.literal("searxng"), url: HttpUrl }),
  /** Brave Search API: the subscription key; `url` replaces https://api.search.brave.com (a proxy, tests). */
  z.object({ backend: z.literal("brave"), apiKey: z.string().min(1), url: HttpUrl.optional() }),
]);
export type WebSearchBackendConfig = z.infer<typeof WebSearchBackendConfig>;

/** The names of the backends, as WEB_SEARCH_BACKEND spells them. */
export const searchBackendNames = ["searxng", "brave"] as const;

/** One search hit as the model sees it: plain text, control characters removed, lengths capped. */
export const SearchResult = z.object({ title: z.string(), url: z.string(), snippet: z.string() });
export type SearchResult = z.infer<typeof SearchResult>;

/** A hit as a backend's JSON has it, before it is cleaned (fields may hold HTML or be missing). */
export type RawHit = { title?: string | undefined; url: string; snippet?: string | undefined };

/** One HTTP GET a backend needs for a query; `headers` may hold the API key. */
export type SearchRequest = { url: URL; headers?: Readonly<Record<string, string>> };

/** How one backend is asked and how its answer reads; the HTTP itself is the guarded client's. */
export type SearchBackend = {
  /** As in WEB_SEARCH_BACKEND; shown in results and errors. */
  readonly name: (typeof searchBackendNames)[number];
  /** The request for a query; `limit` is a hint (SearXNG has no count parameter). */
  request(query: string, limit: number): SearchRequest;
  /** The hits of a JSON body, or why it is not this backend's format. */
  parse(body: unknown): Checked<RawHit[]>;
  /** How titles and snippets are written: `html` (Brave's `<strong>` highlights, entities) or plain `text`. */
  readonly markup: "html" | "text";
  /** Secret values (the API key), removed from anything the tool returns. */
  readonly secrets: readonly string[];
};

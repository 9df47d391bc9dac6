import { htmlToText } from "./html-to-text.js";
import type { RawHit, SearchResult } from "./search-backend.js";

/** Caps on each field of a result, in characters. */
export const SEARCH_RESULT_CAPS = { title: 300, url: 2048, snippet: 1000 } as const;

// C0/C1 controls (newlines included: a result is one line each) and the bidi overrides that can make
// text read differently from what it is.
// biome-ignore lint/complexity/useRegexLiterals: a literal with control characters trips noControlCharactersInRegex
const CONTROL = new RegExp(
  "[\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]+",
  "g",
);
// biome-ignore lint/complexity/useRegexLiterals: as above
const UNSAFE_IN_URL = new RegExp("[\\s\\u0000-\\u001f\\u007f-\\u009f]");

/** One line of plain text: markup reduced (for `html`), controls replaced by spaces, capped with "…". */
export function cleanText(value: string | undefined, markup: "html" | "text", cap: number): string {
  if (!value) return "";
  // Reduce a bounded prefix only: a hostile multi-megabyte field costs no more than a normal one.
  const prefix = value.slice(0, cap * 4);
  const plain = markup === "html" ? htmlToText(prefix, cap * 4).text : prefix;
  const line = plain.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return line.length > cap ? `${line.slice(0, cap - 1)}…` : line;
}

/**
 * The hits as results: at most `limit`, each with an http(s) URL (others are dropped, never fetched
 * here), fields cleaned and capped. A hit whose URL is too long is dropped rather than cut (a cut URL
 * points elsewhere).
 */
export function toSearchResults(
  hits: readonly RawHit[],
  markup: "html" | "text",
  limit: number,
): SearchResult[] {
  const results: SearchResult[] = [];
  for (const hit of hits) {
    if (results.length >= limit) break;
    const url = hitUrl(hit.url);
    if (!url) continue;
    results.push({
      title: cleanText(hit.title, markup, SEARCH_RESULT_CAPS.title) || url,
      url,
      snippet: cleanText(hit.snippet, markup, SEARCH_RESULT_CAPS.snippet),
    });
  }
  return results;
}

function hitUrl(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (trimmed.length > SEARCH_RESULT_CAPS.url || UNSAFE_IN_URL.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.href.length > SEARCH_RESULT_CAPS.url ? undefined : url.href;
  } catch {
    return undefined;
  }
}

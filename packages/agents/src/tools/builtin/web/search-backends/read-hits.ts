import type { RawHit } from "../search-backend.js";

/** The base URL joined with a relative path, keeping a base path prefix (`https://host/searx/` + `search`). */
export function endpoint(base: string, path: string): URL {
  return new URL(path, base.endsWith("/") ? base : `${base}/`);
}

/** The hits of `list`, keeping only entries with a string url (other entries are skipped, not fatal). */
export function hitsOf(
  list: readonly unknown[],
  read: (item: Record<string, unknown>) => RawHit | undefined,
): RawHit[] {
  const hits: RawHit[] = [];
  for (const item of list) {
    if (item === null || typeof item !== "object") continue;
    const hit = read(item as Record<string, unknown>);
    if (hit) hits.push(hit);
  }
  return hits;
}

/** A string field, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

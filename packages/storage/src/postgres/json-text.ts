/**
 * The Postgres schema keeps JSON in text columns (as SQLite does), so the repositories encode and decode
 * it themselves, the way SQLite's `text({ mode: "json" })` does: JSON.stringify in, JSON.parse out.
 * A null or absent value is SQL NULL (never the text `null`), and reads back as null either way.
 */

/** A value as the text stored in a JSON column; null and undefined become SQL NULL. */
export function toJsonText(value: unknown): string | null {
  return value == null ? null : JSON.stringify(value);
}

/** A JSON column's text as the value it holds; SQL NULL reads back as null. */
export function fromJsonText<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

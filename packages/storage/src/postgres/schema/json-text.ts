import { customType } from "drizzle-orm/pg-core";

/**
 * A JSON value held in a `text` column, as SQLite's `text({ mode: "json" })` holds it; each column
 * names its value's type with `.$type<T>()`. The SQL type stays `text` (not jsonb) so the two dialects'
 * migrations stay twins. JSON.stringify in, JSON.parse out; null is SQL NULL both ways, never the
 * text `null` (drizzle passes NULL by without calling these, and they keep it NULL when it does not).
 */
export const jsonText = customType<{ data: unknown; driverData: string | null }>({
  dataType: () => "text",
  toDriver: (value) => (value == null ? null : JSON.stringify(value)),
  fromDriver: (text) => (text === null ? null : JSON.parse(text)),
});

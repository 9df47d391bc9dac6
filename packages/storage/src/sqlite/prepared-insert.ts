import { type Column, getTableColumns, getTableName, type InferInsertModel } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./open-database.js";

/**
 * A whole-row insert prepared once, for rows written on every turn: a plain better-sqlite3 statement
 * with positional parameters, so a turn's inserts skip drizzle's per-run placeholder filling and
 * mapping. Each non-null value goes through its column's encoder (a boolean becomes 0 or 1, a JSON
 * column its text); a null stays NULL, as an unprepared drizzle insert stores it.
 */
export function preparedInsert<T extends SQLiteTable>(
  db: Db,
  table: T,
): { run(row: InferInsertModel<T>): void } {
  const columns = Object.entries(getTableColumns(table)) as [string, Column][];
  const names = columns.map(([, column]) => `"${column.name}"`).join(", ");
  const slots = columns.map(() => "?").join(", ");
  const statement = db.$client.prepare(`INSERT INTO "${getTableName(table)}" (${names}) VALUES (${slots})`);
  const values: unknown[] = new Array(columns.length);
  return {
    run(row) {
      for (let i = 0; i < columns.length; i++) {
        const [key, column] = columns[i] as [string, Column];
        const value = (row as Record<string, unknown>)[key];
        values[i] = value === null || value === undefined ? null : column.mapToDriverValue(value);
      }
      statement.run(values);
    },
  };
}

import { type Column, getTableColumns, type InferInsertModel, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./open-database.js";

/**
 * A whole-row insert prepared once, for rows written on every turn. drizzle encodes a placeholder's
 * value with its column's encoder even when it is null (a null boolean becomes 0, a null JSON column
 * the text "null"), so the placeholders here are raw and `run` encodes each non-null value itself:
 * a null stays NULL, as an unprepared insert stores it.
 */
export function preparedInsert<T extends SQLiteTable>(
  db: Db,
  table: T,
): { run(row: InferInsertModel<T>): void } {
  const columns = Object.entries(getTableColumns(table)) as [string, Column][];
  const statement = db
    .insert(table)
    .values(
      Object.fromEntries(columns.map(([key]) => [key, sql`${sql.placeholder(key)}`])) as InferInsertModel<T>,
    )
    .prepare();
  return {
    run(row) {
      const values: Record<string, unknown> = {};
      for (const [key, column] of columns) {
        const value = (row as Record<string, unknown>)[key];
        values[key] = value === null || value === undefined ? null : column.mapToDriverValue(value);
      }
      statement.run(values);
    },
  };
}

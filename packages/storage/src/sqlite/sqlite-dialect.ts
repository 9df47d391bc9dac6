import type { Column, SQL, Table } from "drizzle-orm";
import type { SelectedFields, SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Dialect, OnConflict, Select } from "../shared/dialect.js";
import type { Db } from "./open-database.js";
import { apiTokens, assets, memories, plans, users, workflows } from "./schema/index.js";

// The shared repositories hand over tables as drizzle's dialect-free `Table`; they are this schema's.
const own = (table: Table) => table as SQLiteTable;
const ownColumns = (columns: Column | Column[]) => columns as SQLiteColumn | SQLiteColumn[];

/**
 * SQLite under the shared repositories: each statement runs synchronously when called (so it joins
 * the event-loop turn's write batch, as the per-dialect repositories' do), and the promise is settled.
 */
export function sqliteDialect(db: Db): Dialect {
  const query = ({ table, fields, where, orderBy }: Select) => {
    const from = (fields ? db.select(fields as SelectedFields) : db.select()).from(own(table)).where(where);
    return orderBy?.length ? from.orderBy(...(orderBy as (SQLiteColumn | SQL)[])) : from;
  };
  return {
    tables: { users, apiTokens, assets, memories, workflows, plans },
    all: async <T>(select: Select) => query(select).all() as T[],
    first: async <T>(select: Select) => query(select).get() as T | undefined,
    async insert(table: Table, values: object, onConflict?: OnConflict) {
      const insert = db.insert(own(table)).values(values);
      if (onConflict === "nothing") insert.onConflictDoNothing().run();
      else if (onConflict)
        insert.onConflictDoUpdate({ target: ownColumns(onConflict.target), set: onConflict.set }).run();
      else insert.run();
    },
    update: async (table: Table, set: object, where: SQL | undefined) =>
      db.update(own(table)).set(set).where(where).run().changes,
    updateReturning: async <T>(table: Table, set: object, where: SQL | undefined) =>
      db.update(own(table)).set(set).where(where).returning().get() as T | undefined,
    delete: async (table: Table, where: SQL | undefined) => db.delete(own(table)).where(where).run().changes,
    // BINARY is SQLite's default collation: text already sorts by bytes.
    bytewise: (column: Column) => column,
  };
}

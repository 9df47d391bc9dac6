import { type Column, type SQL, sql, type Table } from "drizzle-orm";
import type { PgColumn, PgTable, SelectedFields } from "drizzle-orm/pg-core";
import type { Dialect, OnConflict, Select } from "../shared/dialect.js";
import type { PgDb } from "./open-postgres.js";
import { apiTokens, assets, memories, plans, users, workflows } from "./schema/index.js";

// The shared repositories hand over tables as drizzle's dialect-free `Table`; they are this schema's.
const own = (table: Table) => table as PgTable;
const ownColumns = (columns: Column | Column[]) => columns as PgColumn | PgColumn[];

/** Postgres under the shared repositories: each statement awaited on the pool. */
export function postgresDialect(db: PgDb): Dialect {
  const query = ({ table, fields, where, orderBy }: Select) => {
    const from = (fields ? db.select(fields as SelectedFields) : db.select()).from(own(table)).where(where);
    return orderBy?.length ? from.orderBy(...(orderBy as (PgColumn | SQL)[])) : from;
  };
  return {
    tables: { users, apiTokens, assets, memories, workflows, plans },
    all: async <T>(select: Select) => (await query(select)) as T[],
    first: async <T>(select: Select) => (await query(select).limit(1))[0] as T | undefined,
    async insert(table: Table, values: object, onConflict?: OnConflict) {
      const insert = db.insert(own(table)).values(values);
      if (onConflict === "nothing") await insert.onConflictDoNothing();
      else if (onConflict)
        await insert.onConflictDoUpdate({ target: ownColumns(onConflict.target), set: onConflict.set });
      else await insert;
    },
    update: async (table: Table, set: object, where: SQL | undefined) =>
      (await db.update(own(table)).set(set).where(where)).rowCount ?? 0,
    updateReturning: async <T>(table: Table, set: object, where: SQL | undefined) =>
      (await db.update(own(table)).set(set).where(where).returning())[0] as T | undefined,
    delete: async (table: Table, where: SQL | undefined) =>
      (await db.delete(own(table)).where(where)).rowCount ?? 0,
    // `COLLATE "C"` gives SQLite's BINARY order whatever the database's locale.
    bytewise: (column: Column) => sql`${column} collate "C"`,
  };
}

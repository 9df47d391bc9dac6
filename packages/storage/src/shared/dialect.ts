import type { Column, SQL, Table } from "drizzle-orm";

/** A table as the shared repositories see it: its columns by name, whichever dialect built it. */
type TableOf<K extends string> = Table & Record<K, Column>;

/**
 * The tables the shared repositories use. Each dialect passes its own schema's tables; a column renamed
 * in one schema fails to compile here. What a select returns is typed by the contract rows, which
 * test/row-types.test.ts checks against both schemas.
 */
export interface SharedTables {
  users: TableOf<"id" | "createdAt">;
  apiTokens: TableOf<"id" | "userId" | "tokenHash" | "createdAt" | "lastUsedAt" | "revokedAt">;
  assets: TableOf<"id" | "userId" | "threadId">;
  memories: TableOf<"id" | "userId" | "key" | "value" | "createdAt" | "updatedAt">;
  workflows: TableOf<"id" | "userId" | "createdAt" | "updatedAt">;
  plans: TableOf<"id" | "userId" | "threadId" | "status" | "createdAt">;
}

/** One select: every column of the table unless `fields` names some. */
export interface Select {
  table: Table;
  fields?: Record<string, Column | SQL>;
  where?: SQL;
  orderBy?: (Column | SQL)[];
}

/** On a unique conflict: skip the row, or update `set` on the row already there. */
export type OnConflict = "nothing" | { target: Column | Column[]; set: Record<string, unknown> };

/**
 * What SQLite and Postgres do differently, for the rarely hit repositories written once over it (the
 * way payload's db-sqlite sits on its drizzle core): how a statement runs (synchronously in the
 * write batch, or awaited on the pool), how a changed-row count and a returned row come back, how to
 * sort text by bytes. Every statement starts when the method is called, before it returns.
 */
export interface Dialect {
  readonly tables: SharedTables;
  /** Every row the select finds. */
  all<T>(select: Select): Promise<T[]>;
  /** The first row the select finds, or undefined. */
  first<T>(select: Select): Promise<T | undefined>;
  /** Inserts one row. */
  insert(table: Table, values: object, onConflict?: OnConflict): Promise<void>;
  /** Updates the rows `where` finds; how many changed. */
  update(table: Table, set: object, where: SQL | undefined): Promise<number>;
  /** Updates the rows `where` finds; the first of them as it is now, or undefined. */
  updateReturning<T>(table: Table, set: object, where: SQL | undefined): Promise<T | undefined>;
  /** Deletes the rows `where` finds; how many there were. */
  delete(table: Table, where: SQL | undefined): Promise<number>;
  /** The column for an ORDER BY in byte order (SQLite's BINARY collation) whatever the locale. */
  bytewise(column: Column): Column | SQL;
}

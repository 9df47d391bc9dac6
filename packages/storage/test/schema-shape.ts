import type Database from "better-sqlite3";
import type pg from "pg";

/** What both dialects must agree on for one table; names, not types, since the types differ by design. */
export interface TableShape {
  /** Column name → NOT NULL and default (cast suffixes such as `::text` dropped). */
  columns: Record<string, { notNull: boolean; default: string | null }>;
  primaryKey: string[];
  /** Index name → its columns in order and uniqueness; the primary key's own index is left out. */
  indexes: Record<string, { columns: string[]; unique: boolean }>;
  /** `from cols -> table(cols) on delete X on update Y`, sorted. */
  foreignKeys: string[];
}

export type SchemaShape = Record<string, TableShape>;

const migrationsTable = "__drizzle_migrations";

/** The shape of every table of a SQLite database, from sqlite_master and the table pragmas. */
export function sqliteShape(sqlite: Database.Database): SchemaShape {
  const tables = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != ?")
    .all(migrationsTable) as { name: string }[];
  const shape: SchemaShape = {};
  for (const { name } of tables) {
    const columns = sqlite.pragma(`table_info("${name}")`) as {
      name: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const indexes: TableShape["indexes"] = {};
    const list = sqlite.pragma(`index_list("${name}")`) as { name: string; unique: number; origin: string }[];
    for (const index of list.filter((i) => i.origin !== "pk")) {
      const info = sqlite.pragma(`index_info("${index.name}")`) as { seqno: number; name: string }[];
      indexes[index.name] = {
        columns: info.sort((a, b) => a.seqno - b.seqno).map((c) => c.name),
        unique: index.unique === 1,
      };
    }
    const keys = sqlite.pragma(`foreign_key_list("${name}")`) as {
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string;
      on_update: string;
      on_delete: string;
    }[];
    const byId = new Map<number, typeof keys>();
    for (const key of keys) byId.set(key.id, [...(byId.get(key.id) ?? []), key]);
    shape[name] = {
      columns: Object.fromEntries(
        columns.map((c) => [
          c.name,
          // Postgres makes primary key columns NOT NULL whatever was declared; SQLite keeps what was said.
          { notNull: c.notnull === 1 || c.pk > 0, default: normaliseDefault(c.dflt_value) },
        ]),
      ),
      primaryKey: columns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      indexes,
      foreignKeys: [...byId.values()]
        .map((parts) => {
          const sorted = parts.sort((a, b) => a.seq - b.seq);
          const first = sorted[0]!;
          return foreignKey(
            sorted.map((p) => p.from),
            first.table,
            sorted.map((p) => p.to),
            first.on_delete,
            first.on_update,
          );
        })
        .sort(),
    };
  }
  return shape;
}

/** The shape of every table in the public schema, from information_schema and pg_index. */
export async function pgShape(pool: pg.Pool): Promise<SchemaShape> {
  const shape: SchemaShape = {};
  const table = (name: string): TableShape => {
    shape[name] ??= { columns: {}, primaryKey: [], indexes: {}, foreignKeys: [] };
    return shape[name];
  };
  const columns = await pool.query<{
    table_name: string;
    column_name: string;
    is_nullable: string;
    column_default: string | null;
  }>(
    `SELECT c.table_name, c.column_name, c.is_nullable, c.column_default
     FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name != $1
     ORDER BY c.table_name, c.ordinal_position`,
    [migrationsTable],
  );
  for (const c of columns.rows) {
    table(c.table_name).columns[c.column_name] = {
      notNull: c.is_nullable === "NO",
      default: normaliseDefault(c.column_default),
    };
  }
  const indexes = await pool.query<{
    table_name: string;
    index_name: string;
    is_unique: boolean;
    is_primary: boolean;
    columns: string[];
  }>(
    `SELECT t.relname AS table_name, i.relname AS index_name, ix.indisunique AS is_unique,
       ix.indisprimary AS is_primary,
       array(SELECT a.attname FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns
     FROM pg_index ix
     JOIN pg_class t ON t.oid = ix.indrelid
     JOIN pg_class i ON i.oid = ix.indexrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND t.relname != $1`,
    [migrationsTable],
  );
  for (const index of indexes.rows) {
    if (index.is_primary) table(index.table_name).primaryKey = index.columns;
    else
      table(index.table_name).indexes[index.index_name] = { columns: index.columns, unique: index.is_unique };
  }
  const keys = await pool.query<{
    table_name: string;
    constraint_name: string;
    column_name: string;
    ref_table: string;
    ref_column: string;
    delete_rule: string;
    update_rule: string;
  }>(
    `SELECT kcu.table_name, rc.constraint_name, kcu.column_name, ref.table_name AS ref_table,
       ref.column_name AS ref_column, rc.delete_rule, rc.update_rule
     FROM information_schema.referential_constraints rc
     JOIN information_schema.key_column_usage kcu
       ON kcu.constraint_schema = rc.constraint_schema AND kcu.constraint_name = rc.constraint_name
     JOIN information_schema.key_column_usage ref
       ON ref.constraint_schema = rc.unique_constraint_schema AND ref.constraint_name = rc.unique_constraint_name
      AND ref.ordinal_position = kcu.position_in_unique_constraint
     WHERE rc.constraint_schema = 'public'
     ORDER BY kcu.table_name, rc.constraint_name, kcu.ordinal_position`,
  );
  const byConstraint = new Map<string, typeof keys.rows>();
  for (const key of keys.rows) {
    byConstraint.set(key.constraint_name, [...(byConstraint.get(key.constraint_name) ?? []), key]);
  }
  for (const parts of byConstraint.values()) {
    const first = parts[0]!;
    table(first.table_name).foreignKeys.push(
      foreignKey(
        parts.map((p) => p.column_name),
        first.ref_table,
        parts.map((p) => p.ref_column),
        first.delete_rule,
        first.update_rule,
      ),
    );
  }
  for (const t of Object.values(shape)) t.foreignKeys.sort();
  return shape;
}

function foreignKey(from: string[], table: string, to: string[], onDelete: string, onUpdate: string): string {
  return `${from.join(",")} -> ${table}(${to.join(",")}) on delete ${onDelete.toLowerCase()} on update ${onUpdate.toLowerCase()}`;
}

function normaliseDefault(value: string | null): string | null {
  // Postgres shows `'pending'::text`; SQLite shows `'pending'`.
  return value === null ? null : value.replace(/::[a-z ]+$/, "");
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import type { PostgresPoolOptions } from "../contract/storage.js";
import { findMigrationsFolder } from "../find-migrations-folder.js";
import * as schema from "./schema/index.js";

export type AgentwirePgSchema = typeof schema;
export type PgDb = NodePgDatabase<AgentwirePgSchema> & { $client: pg.Pool };

/** An open, migrated Postgres database: the drizzle handle for queries and the pool under it. */
export interface AgentwirePostgres {
  readonly db: PgDb;
  readonly pool: pg.Pool;
  /** True when the database answers and every migration in the folder is recorded as applied. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
  /** Connections open, idle in the pool, and queries waiting for one. */
  poolStats(): { total: number; idle: number; waiting: number };
  /**
   * Takes the database for this process alone, for as long as it runs (a session advisory lock on a
   * connection of its own); false when another process holds it.
   */
  lockSoleInstance(): Promise<boolean>;
}

/** Where and how to open the pool. */
export interface OpenPostgresOptions extends PostgresPoolOptions {
  /** `postgres://user:password@host:port/database`; an `sslmode` in it wins over `sslMode`. */
  url: string;
}

/** Opens a pool on the database and applies pending migrations, one server instance at a time. */
export async function openPostgres(options: OpenPostgresOptions): Promise<AgentwirePostgres> {
  const migrationsFolder = findMigrationsFolder("postgres", options.migrationsFolder);
  const ssl = sslOption(options.sslMode);
  await migrateLocked(options.url, ssl, migrationsFolder);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    ...(options.statementTimeoutMs !== undefined && { statement_timeout: options.statementTimeoutMs }),
    ...(ssl !== undefined && { ssl }),
  });
  // An idle connection the server drops (restart, failover) is reported here; without a listener the
  // process would crash. The pool has already discarded it, and the next query opens a new one.
  pool.on("error", () => {});
  const db = drizzle({ client: pool, schema });
  const expected = countJournalEntries(migrationsFolder);
  let closed = false;
  let sole: pg.Client | undefined;
  return {
    db,
    pool,
    isReady: async () => {
      if (closed) return false;
      try {
        return (await appliedMigrations(pool)) >= expected;
      } catch {
        return false;
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await sole?.end().catch(() => undefined);
      await pool.end();
    },
    lockSoleInstance: async () => {
      if (sole) return true;
      const client = await connectOwn(options.url, ssl);
      const result = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext('agentwire:sole-instance')) AS locked",
      );
      if (result.rows[0]?.locked !== true) {
        await client.end();
        return false;
      }
      sole = client;
      return true;
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

/** A connection outside the pool (a session lock lives as long as it), with the pool's TLS settings. */
async function connectOwn(url: string, ssl: pg.ConnectionConfig["ssl"]): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, ...(ssl !== undefined && { ssl }) });
  // A dropped idle session must not crash the process; its lock is gone with it either way.
  client.on("error", () => {});
  await client.connect();
  return client;
}

function sslOption(mode: OpenPostgresOptions["sslMode"]): pg.ConnectionConfig["ssl"] {
  if (mode === undefined) return undefined;
  if (mode === "disable") return false;
  return { rejectUnauthorized: mode === "verify-full" };
}

/**
 * Applies the migrations on a connection of its own, holding a session advisory lock: drizzle's migrator
 * creates its schema and table outside its transaction, so two instances starting together would otherwise
 * race there. Its own connection also keeps the pool's statement timeout off a long migration or lock wait.
 */
async function migrateLocked(url: string, ssl: pg.ConnectionConfig["ssl"], migrationsFolder: string) {
  const client = await connectOwn(url, ssl);
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('agentwire:migrations'))");
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    // Ending the session releases the advisory lock too, so no explicit unlock can be missed.
    await client.end();
  }
}

function countJournalEntries(folder: string): number {
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

async function appliedMigrations(pool: pg.Pool): Promise<number> {
  // count(*) is a bigint, which pg returns as a string.
  const result = await pool.query<{ n: string }>("SELECT count(*) AS n FROM drizzle.__drizzle_migrations");
  return Number(result.rows[0]?.n ?? 0);
}

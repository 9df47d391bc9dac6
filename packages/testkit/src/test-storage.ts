/**
 * The database of a test on either dialect, without a server: what harness servers and tests of the
 * storage and cluster packages open, so the Postgres run covers them all.
 */
import { createHash } from "node:crypto";
import type { Storage } from "@agentwire-chat/storage";
import { openPostgres, postgresStorage } from "@agentwire-chat/storage/postgres";
import { openDatabase, sqliteHandle, sqliteStorage } from "@agentwire-chat/storage/sqlite";
import pg from "pg";
import { inject } from "vitest";

/**
 * AGENTWIRE_TEST_DB=postgres runs every harness server on Postgres (the `postgres` project of vitest.config.ts starts one
 * for the run): the same tests hold on both dialects.
 */
export const testDialect: "sqlite" | "postgres" =
  process.env.AGENTWIRE_TEST_DB === "postgres" ? "postgres" : "sqlite";

/**
 * The storage a test server runs on: the SQLite file at `dbPath`, or on Postgres a database named after
 * that path (created the first time, reopened after), so restart tests work on both dialects.
 */
export async function openTestStorage(dbPath: string): Promise<Storage> {
  if (testDialect === "sqlite") return sqliteStorage(openDatabase({ path: dbPath }));
  return postgresStorage(await openPostgres({ url: await testPostgresUrl(dbPath), poolSize: 4 }));
}

/**
 * On Postgres, the URL of the database named after `dbPath` (created the first time): what a server
 * process of a test (a child to kill) gets as DATABASE_URL to reach the same data as the test.
 */
export async function testPostgresUrl(dbPath: string): Promise<string> {
  const server = inject("postgresUrl");
  if (!server)
    throw new Error(
      "AGENTWIRE_TEST_DB=postgres needs the postgres project of vitest.config.ts (it starts Postgres)",
    );
  const name = `t_${createHash("sha256").update(dbPath).digest("hex").slice(0, 24)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

/** How many rows a table holds, on either dialect. */
export async function countRows(storage: Storage, table: string): Promise<number> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`countRows: bad table ${table}`);
  if (storage.dialect === "sqlite") {
    const row = sqliteHandle(storage).prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
    return row.n;
  }
  const { postgres } = storage as ReturnType<typeof postgresStorage>;
  const result = await postgres.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(result.rows[0]?.n);
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The Postgres server of an AGENTWIRE_TEST_DB=postgres run (its `postgres` database). */
    postgresUrl: string | undefined;
  }
}

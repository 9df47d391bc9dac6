import type { FastifyBaseLogger } from "fastify";
import { checkpointInWorker } from "../db/checkpoint-worker.js";
import type { AgentwireDatabase } from "../db/open-database.js";
import { openDatabase } from "../db/open-database.js";
import { type AgentwirePostgres, type OpenPostgresOptions, openPostgres } from "../db/open-postgres.js";
import { createPgRepositories } from "../db/pg/create-pg-repositories.js";
import type { Repositories } from "../db/repositories.js";
import { createSqliteRepositories } from "../db/sqlite/create-sqlite-repositories.js";
import { batchWrites } from "../db/sqlite-write-batch.js";
import { type FrameLog, logFrameErrors } from "../turns/frame-log.js";
import { PostgresFrameLog } from "../turns/postgres-frame-log.js";
import { SqliteFrameLog } from "../turns/sqlite-frame-log.js";

/** Connections of a Postgres pool: open, idle, and queries waiting for one. */
export type PoolStats = { total: number; idle: number; waiting: number };

/**
 * The database behind a server, whichever the dialect: its repositories, the frame log of a single
 * instance over it, readiness and pool gauges. SQLite is the embedded default; Postgres is chosen by URL.
 */
export interface Storage {
  readonly dialect: "sqlite" | "postgres";
  readonly repos: Repositories;
  /** The frame log of one instance, stored in this database (several instances use the Redis log instead). */
  createFrameLog(logger: FastifyBaseLogger): FrameLog;
  /** True when the database answers and every migration is applied. */
  isReady(): Promise<boolean>;
  /**
   * Makes sure no other server process runs on this database without coordination (several instances
   * need Redis); false when another one does. A SQLite file is one machine's: always true.
   */
  claimSoleInstance(): Promise<boolean>;
  /** Postgres pool gauges; undefined for SQLite. */
  poolStats(): PoolStats | undefined;
  close(): Promise<void>;
}

/** The raw SQLite handle of a SQLite storage (tests reach below the repositories with it); throws for Postgres. */
export function sqliteHandle(storage: Storage): AgentwireDatabase["sqlite"] {
  if (!("database" in storage)) throw new Error(`${storage.dialect} storage has no SQLite handle`);
  return (storage as ReturnType<typeof sqliteStorage>).database.sqlite;
}

/** What `openStorage` needs: a Postgres URL (with its pool settings) or a SQLite file. */
export interface OpenStorageOptions {
  /** `postgres://…` selects Postgres; absent, the SQLite file at `databasePath`. */
  databaseUrl?: string | undefined;
  databasePath: string;
  postgres?: Omit<OpenPostgresOptions, "url">;
}

/** Opens and migrates the configured database. */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  if (options.databaseUrl)
    return postgresStorage(await openPostgres({ ...options.postgres, url: options.databaseUrl }));
  return sqliteStorage(openDatabase({ path: options.databasePath }));
}

/** A SQLite file as the server's storage (repositories with statements prepared once, the local log). */
export function sqliteStorage(
  database: AgentwireDatabase,
): Storage & { readonly database: AgentwireDatabase } {
  // Before the repositories prepare their statements: every write joins the tick's one transaction.
  const batch = batchWrites(database.sqlite);
  let report = (message: string) => console.error(`agentwire: WAL checkpoint failed: ${message}`);
  const stopCheckpoints = checkpointInWorker(database.sqlite, (message) => report(message));
  return {
    dialect: "sqlite",
    database,
    repos: createSqliteRepositories(database.db),
    createFrameLog: (logger) => {
      batch.onError = (err) => logger.error({ err }, "a batch of writes could not be committed");
      report = (message) => logger.warn({ message }, "WAL checkpoint failed; retried in half a second");
      return new SqliteFrameLog(database.sqlite, { onError: logFrameErrors(logger) });
    },
    isReady: async () => database.isReady(),
    claimSoleInstance: async () => true,
    poolStats: () => undefined,
    close: async () => {
      await stopCheckpoints();
      if (database.sqlite.open) batch.commit();
      database.close();
    },
  };
}

/** A Postgres pool as the server's storage. */
export function postgresStorage(pg: AgentwirePostgres): Storage & { readonly postgres: AgentwirePostgres } {
  return {
    dialect: "postgres",
    postgres: pg,
    repos: createPgRepositories(pg.db),
    createFrameLog: (logger) =>
      new PostgresFrameLog(pg.pool, {
        onError: logFrameErrors(logger),
        onRetry: (err, threadId) =>
          logger.warn(
            { err, thread_id: threadId },
            "frames could not be stored yet; retrying (not sent meanwhile)",
          ),
      }),
    isReady: () => pg.isReady(),
    claimSoleInstance: () => pg.lockSoleInstance(),
    poolStats: () => pg.poolStats(),
    close: () => pg.close(),
  };
}

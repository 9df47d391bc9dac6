import type { FrameLog } from "./frame-log.js";
import type { OpenPostgresOptions } from "./postgres/open-postgres.js";
import type { Repositories } from "./repositories.js";
import type { AgentwireDatabase } from "./sqlite/open-database.js";

/** Where a storage reports what goes wrong in the background (a pino or Fastify logger fits). */
export interface StorageLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

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
  createFrameLog(logger: StorageLogger): FrameLog;
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
  return (storage as Storage & { database: AgentwireDatabase }).database.sqlite;
}

/** What `openStorage` needs: a Postgres URL (with its pool settings) or a SQLite file. */
export interface OpenStorageOptions {
  /** `postgres://…` selects Postgres; absent, the SQLite file at `databasePath`. */
  databaseUrl?: string | undefined;
  databasePath: string;
  postgres?: Omit<OpenPostgresOptions, "url">;
}

/**
 * Opens and migrates the configured database. Each dialect is loaded only when chosen, so an embedded
 * SQLite server never loads `pg` (nor a Postgres one the SQLite driver).
 */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const { openPostgres, postgresStorage } = await import("./postgres/index.js");
    return postgresStorage(await openPostgres({ ...options.postgres, url: options.databaseUrl }));
  }
  const { openDatabase, sqliteStorage } = await import("./sqlite/index.js");
  return sqliteStorage(openDatabase({ path: options.databasePath }));
}

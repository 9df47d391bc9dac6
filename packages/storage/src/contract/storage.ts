import type { FrameLog } from "../frame-log/frame-log.js";
import type { StoredCheckpoint } from "../frame-log/thread-log.js";
import type { Repositories } from "./repositories.js";

/** Where a storage reports what goes wrong in the background (a pino or Fastify logger fits). */
export interface StorageLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** How much of each thread a database's frame log keeps in memory. */
export type FrameLogMemory = {
  /** Committed frames of a thread's latest turn kept for replay (default 20,000); older ones are read from disk. */
  maxRecentFrames?: number;
  /** Frames held in memory, by their JSON length, above which idle threads are forgotten LRU first (default 64 MiB). */
  maxMemoryBytes?: number;
};

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
  createFrameLog(logger: StorageLogger, options?: FrameLogMemory): FrameLog;
  /**
   * Stores turns' checkpoints over their previous ones, for a frame log kept elsewhere (Redis), which
   * calls it only once the frames before each checkpoint are committed there.
   */
  writeCheckpoints(checkpoints: readonly StoredCheckpoint[]): Promise<void>;
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

/** How the server's Postgres pool is set up (the URL aside). */
export interface PostgresPoolOptions {
  /** Most connections the pool opens (default 10). */
  poolSize?: number;
  /** Server-side limit on one statement, in milliseconds; unset means none. */
  statementTimeoutMs?: number;
  /** disable: plain TCP; require: TLS without checking the certificate; verify-full: TLS, certificate checked. */
  sslMode?: "disable" | "require" | "verify-full";
  /** The Postgres migrations folder itself; by default this package's copy of `migrations/postgres`. */
  migrationsFolder?: string;
}

/** What `openStorage` needs: a Postgres URL (with its pool settings) or a SQLite file. */
export interface OpenStorageOptions {
  /** `postgres://…` selects Postgres; absent, the SQLite file at `databasePath`. */
  databaseUrl?: string | undefined;
  databasePath: string;
  postgres?: PostgresPoolOptions;
}

/**
 * Opens and migrates the configured database. Each dialect is loaded only when chosen, so an embedded
 * SQLite server never loads `pg` (nor a Postgres one the SQLite driver).
 */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  if (options.databaseUrl) {
    const { openPostgres, postgresStorage } = await import("../postgres/index.js");
    return postgresStorage(await openPostgres({ ...options.postgres, url: options.databaseUrl }));
  }
  const { openDatabase, sqliteStorage } = await import("../sqlite/index.js");
  return sqliteStorage(openDatabase({ path: options.databasePath }));
}

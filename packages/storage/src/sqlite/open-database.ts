import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { findMigrationsFolder } from "../find-migrations-folder.js";
import * as schema from "./schema/index.js";

export type AgentwireSchema = typeof schema;
export type Db = BetterSQLite3Database<AgentwireSchema> & { $client: Database.Database };

/** An open, migrated database: the drizzle handle for queries, the raw handle for pragmas and close. */
export interface AgentwireDatabase {
  readonly db: Db;
  readonly sqlite: Database.Database;
  /** True when every migration in the folder is recorded as applied. */
  isReady(): boolean;
  close(): void;
}

export interface OpenDatabaseOptions {
  /** A file path, or `:memory:`. Parent directories are created. */
  path: string;
  migrationsFolder?: string;
  /** Milliseconds a writer waits on a locked database before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/** Opens the SQLite file with WAL, busy_timeout and foreign keys on, and applies pending migrations. */
export function openDatabase(options: OpenDatabaseOptions): AgentwireDatabase {
  if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
  const migrationsFolder = findMigrationsFolder("sqlite", options.migrationsFolder);
  const sqlite = new Database(options.path);
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("synchronous = NORMAL");
    const db = drizzle({ client: sqlite, schema });
    migrate(db, { migrationsFolder });
    const expected = countJournalEntries(migrationsFolder);
    return {
      db,
      sqlite,
      isReady: () => sqlite.open && appliedMigrations(sqlite) >= expected,
      close: () => {
        if (sqlite.open) sqlite.close();
      },
    };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

function countJournalEntries(folder: string): number {
  // readMigrationFiles would also hash every file; the journal's entry count is all readiness needs.
  const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}

function appliedMigrations(sqlite: Database.Database): number {
  const row = sqlite.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
  return row.n;
}

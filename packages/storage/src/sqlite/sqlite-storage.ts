import type { Storage } from "../contract/storage.js";
import { logFrameErrors } from "../frame-log/frame-log.js";
import { checkpointInWorker } from "./checkpoint-worker.js";
import { createSqliteRepositories } from "./create-sqlite-repositories.js";
import type { AgentwireDatabase } from "./open-database.js";
import { SqliteFrameLog } from "./sqlite-frame-log.js";
import { batchWrites } from "./write-batch.js";

/** A SQLite file as the server's storage (repositories with statements prepared once, the local log). */
export function sqliteStorage(
  database: AgentwireDatabase,
): Storage & { readonly database: AgentwireDatabase } {
  // Before the repositories prepare their statements: every write joins the tick's one transaction.
  const batch = batchWrites(database.sqlite);
  let report = (message: string) => console.error(`agentwire: WAL checkpoint failed: ${message}`);
  const stopCheckpoints = checkpointInWorker(database.sqlite, (message) => report(message));
  const saveCheckpoint = database.sqlite.prepare<[string, string]>(
    "UPDATE turns SET checkpoint = ? WHERE id = ?",
  );
  return {
    dialect: "sqlite",
    database,
    repos: createSqliteRepositories(database.db),
    createFrameLog: (logger, memory) => {
      batch.onError = (err) => logger.error({ err }, "a batch of writes could not be committed");
      report = (message) => logger.warn({ message }, "WAL checkpoint failed; retried in half a second");
      const log = new SqliteFrameLog(database.sqlite, { ...memory, onError: logFrameErrors(logger) });
      batch.committedByLog = () => log.commitQueued;
      return log;
    },
    writeCheckpoints: async (checkpoints) => {
      for (const c of checkpoints) saveCheckpoint.run(c.json, c.turnId);
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

/** The raw SQLite handle of a SQLite storage (tests reach below the repositories with it); throws for Postgres. */
export function sqliteHandle(storage: Storage): AgentwireDatabase["sqlite"] {
  if (!("database" in storage)) throw new Error(`${storage.dialect} storage has no SQLite handle`);
  return (storage as Storage & { database: AgentwireDatabase }).database.sqlite;
}

// SQLite, the embedded default: open a file (migrated), its repositories, its frame log, its Storage.
export { createSqliteRepositories } from "./create-sqlite-repositories.js";
export { type AgentwireDatabase, type Db, type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export * as schema from "./schema/index.js";
export { SqliteBatchStore } from "./sqlite-batch-store.js";
export { SqliteFrameLog } from "./sqlite-frame-log.js";
export { sqliteHandle, sqliteStorage } from "./sqlite-storage.js";
export { batchWrites, commitBatch } from "./write-batch.js";

// Postgres, for several instances (with @agentwire-chat/cluster): open a pool (migrated), its repositories,
// the single-instance frame log, its Storage.
export { createPgRepositories } from "./create-pg-repositories.js";
export {
  type AgentwirePostgres,
  type OpenPostgresOptions,
  openPostgres,
  type PgDb,
} from "./open-postgres.js";
export { PostgresBatchStore } from "./postgres-batch-store.js";
export { PostgresFrameLog } from "./postgres-frame-log.js";
export { postgresStorage } from "./postgres-storage.js";
export * as pgSchema from "./schema/index.js";

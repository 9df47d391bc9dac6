import type { Storage } from "../contract/storage.js";
import { logFrameErrors } from "../frame-log/frame-log.js";
import { createPgRepositories } from "./create-pg-repositories.js";
import type { AgentwirePostgres } from "./open-postgres.js";
import { writeCheckpoints } from "./postgres-batch-store.js";
import { PostgresFrameLog } from "./postgres-frame-log.js";

/** A Postgres pool as the server's storage. */
export function postgresStorage(pg: AgentwirePostgres): Storage & { readonly postgres: AgentwirePostgres } {
  return {
    dialect: "postgres",
    postgres: pg,
    repos: createPgRepositories(pg.db),
    createFrameLog: (logger, memory) =>
      new PostgresFrameLog(pg.pool, {
        ...memory,
        onError: logFrameErrors(logger),
        onRetry: (err, threadId) =>
          logger.warn(
            { err, thread_id: threadId },
            "frames could not be stored yet; retrying (not sent meanwhile)",
          ),
      }),
    writeCheckpoints: (checkpoints) => writeCheckpoints(pg.pool, checkpoints),
    isReady: () => pg.isReady(),
    claimSoleInstance: () => pg.lockSoleInstance(),
    poolStats: () => pg.poolStats(),
    close: () => pg.close(),
  };
}

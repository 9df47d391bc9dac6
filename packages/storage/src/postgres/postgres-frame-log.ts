import type pg from "pg";
import { GroupCommitLog, type GroupCommitLogOptions } from "../frame-log/group-commit-log.js";
import { PostgresBatchStore } from "./postgres-batch-store.js";

/**
 * The group-commit frame log over Postgres for one instance (no Redis): commits are asynchronous, and a
 * commit that fails for a passing reason is retried with its frames held back.
 */
export class PostgresFrameLog extends GroupCommitLog {
  constructor(pool: pg.Pool, options: GroupCommitLogOptions = {}) {
    super(new PostgresBatchStore(pool), options);
  }
}

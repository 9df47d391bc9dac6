import type Database from "better-sqlite3";
import { GroupCommitLog, type GroupCommitLogOptions } from "../frame-log/group-commit-log.js";
import { SqliteBatchStore } from "./sqlite-batch-store.js";

/** The group-commit frame log over a SQLite file: one synchronous commit per event-loop turn. */
export class SqliteFrameLog extends GroupCommitLog {
  constructor(sqlite: Database.Database, options: GroupCommitLogOptions = {}) {
    super(new SqliteBatchStore(sqlite), options);
  }
}

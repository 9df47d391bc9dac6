// The storage contract, whichever the dialect: repositories and their rows, the frame log, the
// suspended turn, and `openStorage`, which loads a dialect (`./sqlite`, `./postgres`) only when chosen.

export type { BatchStore, Maybe } from "./batch-store.js";
export { findMigrationsFolder } from "./find-migrations-folder.js";
export type { FrameLog, FrameSubscriber, LoggedFrame } from "./frame-log.js";
export { logFrameErrors } from "./frame-log.js";
export { GroupCommitLog, type GroupCommitLogOptions } from "./group-commit-log.js";
export * from "./repositories.js";
export { type ScratchpadRow, toScratchpadItem, toScratchpadRow } from "./scratchpad-rows.js";
export {
  type OpenStorageOptions,
  openStorage,
  type PoolStats,
  type PostgresPoolOptions,
  type Storage,
  type StorageLogger,
} from "./storage.js";
export { readSuspendedTurn, SuspendedTurn } from "./suspended-turn.js";
// The in-memory core every frame log is built on (the Redis log of @agentwire/cluster too).
export {
  dedupe,
  defaultSchedule,
  gated,
  LogMemory,
  type Pending,
  ThreadLog,
} from "./thread-log.js";

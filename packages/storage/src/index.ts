// The storage contract, whichever the dialect: repositories and their rows, the frame log, the
// suspended turn, and `openStorage`, which loads a dialect (`./sqlite`, `./postgres`) only when chosen.
export type { BatchStore, Maybe } from "./batch-store.js";
export { findMigrationsFolder } from "./find-migrations-folder.js";
export type { FrameLog, FrameLogMemoryStats, FrameSubscriber, LoggedFrame } from "./frame-log.js";
export { logFrameErrors } from "./frame-log.js";
export { GroupCommitLog, type GroupCommitLogOptions } from "./group-commit-log.js";
export {
  bytesOf,
  DEFAULT_FRAME_LOG_MEMORY_BYTES,
  MemoryBound,
} from "./memory-bound.js";
export { MemoryFrameLog, type MemoryFrameLogOptions } from "./memory-frame-log.js";
export { toStoredMessage } from "./message-rows.js";
export type {
  ApiTokenRow,
  ApiTokensRepo,
  AssetRow,
  AssetsRepo,
  FrameBatchRow,
  LlmCallRow,
  LlmCallsRepo,
  MemoriesRepo,
  MemoryRow,
  MessageRow,
  MessagesRepo,
  NewMessage,
  NodeCostRow,
  PlanRow,
  PlansRepo,
  Repositories,
  RunningTurnKey,
  ScratchpadRepo,
  ScratchpadRow,
  SummariesRepo,
  ThreadRow,
  ThreadSummaryRecord,
  ThreadSummaryRow,
  ThreadsRepo,
  ToolGrantRow,
  ToolGrantsRepo,
  TurnEnd,
  TurnRow,
  TurnStart,
  TurnsRepo,
  TurnUpdate,
  UserRow,
  UsersRepo,
  WorkflowRow,
  WorkflowsRepo,
} from "./repositories.js";
export { toScratchpadItem, toScratchpadRow } from "./scratchpad-rows.js";
export {
  type FrameLogMemory,
  type OpenStorageOptions,
  openStorage,
  type PoolStats,
  type PostgresPoolOptions,
  type Storage,
  type StorageLogger,
} from "./storage.js";
export { readSuspendedTurn, SuspendedTurn } from "./suspended-turn.js";
export {
  dedupe,
  defaultSchedule,
  gated,
  LogMemory,
  type Pending,
  type StoredCheckpoint,
  ThreadLog,
} from "./thread-log.js";
export { toThreadSummary } from "./thread-rows.js";
export {
  readTurnCheckpoint,
  readTurnStart,
  TurnCheckpoint,
  type TurnCheckpointInput,
  TurnStartRecord,
} from "./turn-checkpoint.js";

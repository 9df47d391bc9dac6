// The storage contract, whichever the dialect: repositories and their rows, the frame log, the
// suspended turn, and `openStorage`, which loads a dialect (`./sqlite`, `./postgres`) only when chosen.

export {
  branchLeaf,
  type MessageTree,
  messageTree,
  newestLeafOf,
  pathTo,
  siblingsOf,
  type TreeLink,
} from "./contract/branch-path.js";
export { toStoredMessage } from "./contract/message-rows.js";
export type {
  ApiTokenRow,
  ApiTokensRepo,
  AssetRow,
  AssetsRepo,
  Branch,
  BranchQuery,
  FrameBatchRow,
  LlmCallRow,
  LlmCallsRepo,
  MemoriesRepo,
  MemoryRow,
  MessageRow,
  MessagesRepo,
  NewMessage,
  NewQueuedMessage,
  NodeCostRow,
  PlanRow,
  PlansRepo,
  QueuedChatMessage,
  QueuedMessageRow,
  QueuedMessagesRepo,
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
} from "./contract/repositories.js";
export { toScratchpadItem, toScratchpadRow } from "./contract/scratchpad-rows.js";
export {
  type FrameLogMemory,
  type OpenStorageOptions,
  openStorage,
  type PoolStats,
  type PostgresPoolOptions,
  type Storage,
  type StorageLogger,
} from "./contract/storage.js";
export { readSuspendedTurn, SuspendedTurn } from "./contract/suspended-turn.js";
export { toThreadSummary } from "./contract/thread-rows.js";
export {
  readTurnCheckpoint,
  readTurnStart,
  TurnCheckpoint,
  type TurnCheckpointInput,
  TurnStartRecord,
} from "./contract/turn-checkpoint.js";
export { findMigrationsFolder } from "./find-migrations-folder.js";
export type { BatchStore, Maybe } from "./frame-log/batch-store.js";
export type { FrameLog, FrameLogMemoryStats, FrameSubscriber, LoggedFrame } from "./frame-log/frame-log.js";
export { logFrameErrors } from "./frame-log/frame-log.js";
export { GroupCommitLog, type GroupCommitLogOptions } from "./frame-log/group-commit-log.js";
export {
  bytesOf,
  DEFAULT_FRAME_LOG_MEMORY_BYTES,
  MemoryBound,
} from "./frame-log/memory-bound.js";
export { MemoryFrameLog, type MemoryFrameLogOptions } from "./frame-log/memory-frame-log.js";
export {
  dedupe,
  defaultSchedule,
  gated,
  LogMemory,
  type Pending,
  type StoredCheckpoint,
  ThreadLog,
} from "./frame-log/thread-log.js";

// The storage contract, whichever the dialect: repositories and their rows, the frame log, the
// suspended turn, and `openStorage`, which loads a dialect (`./sqlite`, `./postgres`) only when chosen.
export type { BatchStore, Maybe } from "./batch-store.js";
export { findMigrationsFolder } from "./find-migrations-folder.js";
export type { FrameLog, FrameSubscriber, LoggedFrame } from "./frame-log.js";
export { logFrameErrors } from "./frame-log.js";
export { GroupCommitLog, type GroupCommitLogOptions } from "./group-commit-log.js";
export {
  type ApiTokenRow,
  type ApiTokensRepo,
  type AssetRow,
  type AssetsRepo,
  type FrameBatchRow,
  type LlmCallRow,
  type LlmCallsRepo,
  type MemoriesRepo,
  type MemoryRow,
  type MessageRow,
  type MessagesRepo,
  type NewMessage,
  type NodeCostRow,
  type PlanRow,
  type PlansRepo,
  type Repositories,
  type ScratchpadRepo,
  type ScratchpadRow,
  type SummariesRepo,
  type ThreadRow,
  type ThreadSummaryRecord,
  type ThreadSummaryRow,
  type ThreadsRepo,
  type ToolGrantRow,
  type ToolGrantsRepo,
  type TurnEnd,
  type TurnRow,
  type TurnStart,
  type TurnsRepo,
  type TurnUpdate,
  toStoredMessage,
  toThreadSummary,
  type UserRow,
  type UsersRepo,
  type WorkflowRow,
  type WorkflowsRepo,
} from "./repositories.js";
export { toScratchpadItem, toScratchpadRow } from "./scratchpad-rows.js";
export {
  type OpenStorageOptions,
  openStorage,
  type PoolStats,
  type PostgresPoolOptions,
  type Storage,
  type StorageLogger,
} from "./storage.js";
export { readSuspendedTurn, SuspendedTurn } from "./suspended-turn.js";
export { dedupe, defaultSchedule, gated, LogMemory, type Pending, ThreadLog } from "./thread-log.js";

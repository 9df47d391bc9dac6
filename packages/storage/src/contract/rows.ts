// The rows of every table as the repositories hand them out, whichever the dialect: written here once,
// in the protocol's types, and not inferred from either schema. Times are epoch milliseconds; JSON
// columns hold the protocol's values (SQL NULL reads as null). test/row-types.test.ts checks that
// both schemas select exactly these. Type aliases, not interfaces: a row goes where drizzle and
// better-sqlite3 take a Record<string, unknown> (prepared statements' named parameters).
import type {
  ChatContext,
  ExecutionTreeSnapshot,
  LlmOperation,
  MessageContent,
  MessageRole,
  MessageStatus,
  OnBusy,
  Plan,
  PlanExecutionMode,
  PlanStatus,
  ScratchpadKind,
  ScratchpadStatus,
  StoredToolCall,
  TurnStatus,
  TurnUsage,
} from "@agentwire-chat/protocol";
import type { SuspendedTurn } from "./suspended-turn.js";

/** A user, identified by a short name (`local` when AUTH_MODE=none). */
export type UserRow = {
  id: string;
  createdAt: number;
};

/** An API token, stored as its sha256 hash only. */
export type ApiTokenRow = {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
};

/** A conversation (SQLite's legacy `last_seq` column is not part of it: only its frame log reads that). */
export type ThreadRow = {
  id: string;
  userId: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** The last message of the thread's current branch (null: no message yet). */
  currentLeafId: string | null;
};

/** One stored row of a thread; `seq` orders rows within the thread. */
export type MessageRow = {
  id: string;
  threadId: string;
  userId: string;
  turnId: string | null;
  seq: number;
  role: MessageRole;
  content: MessageContent | null;
  toolCalls: StoredToolCall[] | null;
  toolCallId: string | null;
  isError: boolean | null;
  provider: string | null;
  model: string | null;
  executionTree: ExecutionTreeSnapshot | null;
  usage: TurnUsage | null;
  status: MessageStatus;
  createdAt: number;
  /** The message this one follows on its branch (null: a first message of the thread). */
  parentId: string | null;
};

/** What a queued message starts its turn with: its chat_message, as far as a turn of the chat route reads it. */
export type QueuedChatMessage = {
  content: MessageContent;
  provider?: string;
  model?: string;
  chat_context?: ChatContext;
  memory_enabled?: boolean;
  /** Absent: the current leaf when it starts. */
  parent_message_id?: string | null;
};

/**
 * A message sent while a turn ran (`on_busy` queue, steer or interrupt), stored but not yet on a
 * branch; its id becomes the user message's when it starts. Queues run by `priority` (0: an interrupt's
 * message, before the others), then `seq` (per thread, in arrival order).
 */
export type QueuedMessageRow = {
  id: string;
  threadId: string;
  userId: string;
  mode: Exclude<OnBusy, "reject">;
  priority: number;
  seq: number;
  data: QueuedChatMessage;
  requestId: string | null;
  createdAt: number;
};

/** One chat turn; `suspendedState` holds what a turn waiting on the user needs to continue. */
export type TurnRow = {
  id: string;
  threadId: string;
  userId: string;
  status: TurnStatus;
  usage: TurnUsage | null;
  error: string | null;
  suspendedState: SuspendedTurn | null;
  startedAt: number;
  endedAt: number | null;
  provider: string | null;
  model: string | null;
  requestId: string | null;
  /** The latest checkpoint of a running turn, unchecked JSON (read it with readTurnCheckpoint). */
  checkpoint: unknown;
  /** How many times recovery continued the turn after a crash. */
  recoveries: number;
};

/** One provider call of a turn, at any depth of its tree. */
export type LlmCallRow = {
  id: string;
  turnId: string;
  threadId: string;
  userId: string;
  provider: string;
  model: string;
  operation: LlmOperation;
  depth: number;
  parentId: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
  costKnown: boolean;
  latencyMs: number;
  error: string | null;
  createdAt: number;
};

/** A saved workflow graph (its shape belongs to the workflow runner). */
export type WorkflowRow = {
  id: string;
  userId: string;
  name: string;
  graph: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
};

/** A generated file whose bytes live on disk at `path`. */
export type AssetRow = {
  id: string;
  userId: string;
  threadId: string;
  mimeType: string;
  bytes: number;
  path: string;
  createdAt: number;
};

/** One key of a user's long-term memory. */
export type MemoryRow = {
  id: string;
  userId: string;
  key: string;
  value: string;
  createdAt: number;
  updatedAt: number;
};

/** A plan create_plan made, with the context it was made in. */
export type PlanRow = {
  id: string;
  threadId: string;
  userId: string;
  toolCallId: string;
  executionMode: PlanExecutionMode;
  plan: Plan;
  chatContext: ChatContext;
  status: PlanStatus;
  createdAt: number;
  updatedAt: number;
};

/** One item of a thread's agent scratchpad; `position` is its insertion order within the thread. */
export type ScratchpadRow = {
  threadId: string;
  id: string;
  userId: string;
  kind: ScratchpadKind;
  title: string;
  details: string | null;
  status: ScratchpadStatus;
  relatedIds: string[] | null;
  position: number;
  createdAt: number;
  updatedAt: number;
};

/**
 * A rolling summary, standing for the messages of a branch through `throughMessageId` (every branch
 * through that message shares it): a thread has one per summarized branch point.
 */
export type ThreadSummaryRow = {
  threadId: string;
  userId: string;
  summary: string;
  throughMessageId: string;
  messageCount: number;
  updatedAt: number;
};

/** A tool the user allowed for the rest of a thread. */
export type ToolGrantRow = {
  threadId: string;
  toolName: string;
  userId: string;
  createdAt: number;
};

/** The frames one group commit wrote for one turn, `firstSeq` to `lastSeq`, as JSON lines. */
export type FrameBatchRow = {
  threadId: string;
  firstSeq: number;
  lastSeq: number;
  turnId: string;
  frames: string;
  createdAt: number;
};

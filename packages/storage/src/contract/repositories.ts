import type { LlmCallRecord } from "@agentwire-chat/agents";
import type {
  LlmOperation,
  PlanStatus,
  ScratchpadEdit,
  ScratchpadItem,
  ScratchpadOp,
  StoredMessage,
  ThreadSummary,
  TurnStatus,
  TurnUsage,
} from "@agentwire-chat/protocol";
import type {
  ApiTokenRow,
  AssetRow,
  LlmCallRow,
  MessageRow,
  PlanRow,
  QueuedChatMessage,
  QueuedMessageRow,
  ThreadRow,
  TurnRow,
  WorkflowRow,
} from "./rows.js";
import type { SuspendedTurn } from "./suspended-turn.js";
import type { TurnStartRecord } from "./turn-checkpoint.js";

// The contract's rows are its own (rows.ts), in the protocol's types; each dialect's schema is held to them.
export type * from "./rows.js";

/**
 * What a caller supplies to store a row; seq and created_at are assigned by the repository, the id too
 * unless given (a queued message keeps its id). `parentId` absent: the row follows the thread's current
 * leaf; given (null: a new first message), it follows that message. Either way it becomes the leaf.
 */
export type NewMessage = Pick<MessageRow, "role" | "status"> &
  Partial<
    Pick<
      MessageRow,
      | "id"
      | "parentId"
      | "turnId"
      | "content"
      | "toolCalls"
      | "toolCallId"
      | "isError"
      | "provider"
      | "model"
      | "executionTree"
      | "usage"
    >
  >;

/** What a caller supplies to record a generated file (the id it was written under, if it claimed one). */
export type NewAsset = Pick<AssetRow, "threadId" | "mimeType" | "bytes" | "path"> &
  Partial<Pick<AssetRow, "id">>;

/** What create_plan supplies to store a plan; the user and times are the repository's. */
export type NewPlan = Pick<
  PlanRow,
  "id" | "threadId" | "toolCallId" | "executionMode" | "plan" | "chatContext" | "status"
>;

/** What a workflow update may replace; absent fields stay as they are. */
export interface WorkflowChanges {
  name?: string;
  graph?: Record<string, unknown>;
}

/** What may change on a turn after it started. */
export interface TurnUpdate {
  status?: TurnStatus;
  usage?: TurnUsage | null;
  error?: string | null;
  suspendedState?: SuspendedTurn | null;
  endedAt?: number | null;
  recoveries?: number;
  /** Only cleared here: the frame log writes checkpoints (with the frames before them). */
  checkpoint?: null;
}

/** The final state of a turn. */
export interface TurnEnd {
  status: TurnStatus;
  usage: TurnUsage;
  error: string | null;
  endedAt: number;
}

/** Users: created on first sight (tokens, local mode). */
export interface UsersRepo {
  /** Creates the user if missing. */
  ensure(userId: string, now?: number): Promise<void>;
  /** True when the user exists. */
  exists(userId: string): Promise<boolean>;
}

/** API tokens, by hash. The one lookup not scoped by user is `findActiveByHash`: it is how a user is found. */
export interface ApiTokensRepo {
  /** Stores a token hash for the user; returns the token's id. */
  create(userId: string, tokenHash: string, now?: number): Promise<string>;
  /** The unrevoked token with this hash. */
  findActiveByHash(tokenHash: string): Promise<ApiTokenRow | undefined>;
  /** Records a use of the token. */
  touch(id: string, now?: number): Promise<void>;
  /** Every token, or the user's. */
  list(userId?: string): Promise<ApiTokenRow[]>;
  /** Revokes a token; false when there is no such active token. */
  revoke(id: string, now?: number): Promise<boolean>;
}

/** Threads, always scoped by the owning user: another user's thread reads as missing. */
export interface ThreadsRepo {
  /** The user's threads, most recently updated first. */
  list(userId: string): Promise<ThreadSummary[]>;
  /** The thread if it exists and belongs to the user. */
  get(userId: string, threadId: string): Promise<ThreadRow | undefined>;
  /**
   * Creates a thread for the user, with a fresh id or `id` (an edge's chat id); an id any thread
   * already has, the user's or another's, is refused (the insert fails) and nothing is stored.
   */
  create(userId: string, title: string, now?: number, id?: string): Promise<ThreadRow>;
  /** Renames a thread; false when the user has no such thread. */
  rename(userId: string, threadId: string, title: string, now?: number): Promise<boolean>;
  /** Deletes a thread and, by cascade, everything of it (messages, turns, tool grants...); false when not the user's. */
  delete(userId: string, threadId: string): Promise<boolean>;
}

/** Which branch of a thread to read, and how much of it. */
export interface BranchQuery {
  /** The branch through this message, down to its newest descendant leaf; absent: the current leaf's. */
  leafId?: string;
  /** Only the rows after this one, when it is on the branch (what a rolling summary does not cover). */
  afterId?: string;
}

/** One branch of a thread: the path from its first message to a leaf. */
export interface Branch {
  /** The branch's last message (null: the thread has no message). */
  leafId: string | null;
  /** Every message id of the path, first to leaf. */
  ids: string[];
  /**
   * The path's rows in order (only those after `afterId` when it is on the path), each with its
   * `parent_message_id`, and `sibling_ids` where the message has alternatives.
   */
  messages: StoredMessage[];
}

/** Messages of a thread, always through the owning user. */
export interface MessagesRepo {
  /** Every row of every branch, in seq order; throws not_found when the thread is not the user's. */
  list(userId: string, threadId: string): Promise<StoredMessage[]>;
  /**
   * One branch of the thread (see BranchQuery); undefined when `leafId` is not a message of the thread;
   * throws not_found when the thread is not the user's.
   */
  branch(userId: string, threadId: string, query?: BranchQuery): Promise<Branch | undefined>;
  /** One row of the user's thread (with its `parent_message_id`), or undefined. */
  get(userId: string, threadId: string, messageId: string): Promise<StoredMessage | undefined>;
  /** The newest leaf under the message (itself when it has no children); undefined when the thread has no such message. */
  newestLeaf(userId: string, threadId: string, messageId: string): Promise<string | undefined>;
  /** Makes the message (null: none) the thread's current leaf as it is; false when the user has no such thread or message. */
  setCurrentLeaf(userId: string, threadId: string, messageId: string | null, now?: number): Promise<boolean>;
  /** Stores a row (see NewMessage for where it goes), makes it the current leaf and returns it as the protocol's StoredMessage. */
  append(userId: string, threadId: string, message: NewMessage, now?: number): Promise<StoredMessage>;
}

/** What a message sent while a turn ran is stored with (the id is given: it was announced). */
export type NewQueuedMessage = Pick<QueuedMessageRow, "id" | "mode"> & {
  data: QueuedChatMessage;
  requestId?: string;
};

/** Messages waiting for the next turn of their thread (or to steer the running one), always through the owning user. */
export interface QueuedMessagesRepo {
  /**
   * Stores the message at the end of the thread's queue (an `interrupt` before every other), durably
   * by the time it resolves (the user is told at once, not with a turn's frames), and
   * returns it with its 1-based position; "full" when the queue already holds `max` (nothing stored).
   * Throws not_found when the thread is not the user's.
   */
  enqueue(
    userId: string,
    threadId: string,
    message: NewQueuedMessage,
    max: number,
    now?: number,
  ): Promise<{ row: QueuedMessageRow; position: number } | "full">;
  /** The thread's queued messages in the order they start; none for another user's thread. */
  list(userId: string, threadId: string): Promise<QueuedMessageRow[]>;
  /** How many messages wait on the user's thread. */
  count(userId: string, threadId: string): Promise<number>;
  /** Removes one message (its start, or a cancel), durably when it resolves; false when the user's thread holds no such queued message. */
  remove(userId: string, threadId: string, messageId: string): Promise<boolean>;
  /** Removes and returns the thread's `steer` messages, oldest first (they join the running turn). */
  takeSteers(userId: string, threadId: string): Promise<QueuedMessageRow[]>;
  /** Puts a removed row back as it was (its start failed). */
  restore(row: QueuedMessageRow): Promise<void>;
  /** Every thread with a queued message, system-wide (what recovery starts); not scoped by user. */
  queuedThreads(): Promise<Array<{ userId: string; threadId: string }>>;
}

/** What a new turn row records besides its thread: the id claimed for it, who answers, what asked. */
export interface TurnStart {
  id?: string;
  provider?: string;
  model?: string;
  requestId?: string;
  /** What a chat turn starts with (a TurnStartRecord), its checkpoint until the loop stores one. */
  checkpoint?: TurnStartRecord;
}

/** What names a running turn and its owner, without the row's bulk (its checkpoint above all). */
export type RunningTurnKey = Pick<TurnRow, "id" | "threadId" | "userId">;

/** Turns of a thread, always through the owning user (but `listRunning` and `listRunningKeys`, for recovery). */
export interface TurnsRepo {
  /** Records a running turn on the user's thread (with the id the caller already claimed it under, if given). */
  start(userId: string, threadId: string, who?: TurnStart, now?: number): Promise<TurnRow>;
  /** The turn if it belongs to the user. */
  get(userId: string, turnId: string): Promise<TurnRow | undefined>;
  /** The user's most recent turn started by a chat_message with this request_id. */
  findByRequestId(userId: string, requestId: string): Promise<TurnRow | undefined>;
  /** The most recent turn of the user's thread. */
  latest(userId: string, threadId: string): Promise<TurnRow | undefined>;
  /** Ends the user's turn: its final status, usage and error; the suspension is cleared. */
  end(userId: string, turnId: string, end: TurnEnd): Promise<void>;
  /** Threads of the user with a turn waiting on them (a question or an approval). */
  waitingThreads(userId: string): Promise<string[]>;
  /** The user's turns that are running or waiting on them (at most one per thread). */
  activeTurns(userId: string): Promise<TurnRow[]>;
  /** Updates the user's turn; false when it is not theirs. */
  update(userId: string, turnId: string, update: TurnUpdate): Promise<boolean>;
  /** Every turn still marked running, system-wide (recovery ends them; not scoped by user). */
  listRunning(): Promise<TurnRow[]>;
  /**
   * The keys of every turn still marked running, system-wide, oldest first: what a cluster's periodic
   * check for dead instances' turns filters by lease before reading any whole row.
   */
  listRunningKeys(): Promise<RunningTurnKey[]>;
}

/** The provider-call ledger: one row per call at any depth, always through the owning user. */
export interface LlmCallsRepo {
  /** Records one provider call of a turn. */
  record(userId: string, threadId: string, turnId: string, call: LlmCallRecord, now?: number): Promise<void>;
  /** The calls of the user's turn, oldest first. */
  forTurn(userId: string, turnId: string): Promise<LlmCallRow[]>;
  /**
   * What each turn of the user's thread spent, one row per turn, distinct `parent_id` and operation:
   * turns by start, the nodes of a turn by their first call. Turns without calls have no row.
   */
  costByNode(userId: string, threadId: string): Promise<NodeCostRow[]>;
  /**
   * What the user's calls cost (USD, priced calls only): since `since` (ms, inclusive) across all
   * their threads, or on one thread (`threadId`) ever. The spend limits read it before every start.
   */
  spend(userId: string, scope: { since: number } | { threadId: string }): Promise<number>;
}

/** The ledger's sums for the calls of one turn made directly under one parent (null: the root) for one operation. */
export interface NodeCostRow {
  turnId: string;
  parentId: string | null;
  operation: LlmOperation;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Every call of the node was priced. */
  costKnown: boolean;
  llmCalls: number;
}

/** Stored workflow graphs, always scoped by the owning user. */
export interface WorkflowsRepo {
  /** The user's workflows, most recently updated first. */
  list(userId: string): Promise<WorkflowRow[]>;
  /** The workflow if it belongs to the user. */
  get(userId: string, workflowId: string): Promise<WorkflowRow | undefined>;
  /** Stores a new workflow for the user. */
  create(userId: string, name: string, graph: Record<string, unknown>, now?: number): Promise<WorkflowRow>;
  /** Replaces name and/or graph; undefined when the user has no such workflow. */
  update(
    userId: string,
    workflowId: string,
    changes: WorkflowChanges,
    now?: number,
  ): Promise<WorkflowRow | undefined>;
  /** Deletes a workflow; false when not the user's. */
  delete(userId: string, workflowId: string): Promise<boolean>;
}

/** Generated files' records, always scoped by the owning user. */
export interface AssetsRepo {
  /** A fresh asset id (the file is written under it before the row is stored). */
  newId(): string;
  /** Records a file already written to `path`. */
  create(userId: string, asset: NewAsset, now?: number): Promise<AssetRow>;
  /** The asset if it exists and belongs to the user. */
  get(userId: string, assetId: string): Promise<AssetRow | undefined>;
  /** The assets of one of the user's threads. */
  listForThread(userId: string, threadId: string): Promise<AssetRow[]>;
}

/** The agent's long-term memory, per user. */
export interface MemoriesRepo {
  /** The user's memory keys. */
  keys(userId: string): Promise<string[]>;
  /** One value. */
  get(userId: string, key: string): Promise<string | undefined>;
  /** Sets one value. */
  set(userId: string, key: string, value: string, now?: number): Promise<void>;
  /** Deletes one key; false when absent. */
  delete(userId: string, key: string): Promise<boolean>;
  /** How many keys the user has. */
  count(userId: string): Promise<number>;
  /** Every key of the user with its value, sorted by key. */
  list(userId: string): Promise<{ key: string; value: string; updatedAt: number }[]>;
  /** Deletes every key of the user; returns how many there were. */
  clear(userId: string): Promise<number>;
}

/**
 * Each thread's agent scratchpad, always through the owning user. Items are deleted only with their
 * thread or by the user's clear; ids "s1", "s2"… are assigned per thread, and the list keeps insertion order.
 */
export interface ScratchpadRepo {
  /** The thread's items in insertion order; none for another user's thread (owner checks are the caller's). */
  list(userId: string, threadId: string): Promise<ScratchpadItem[]>;
  /**
   * Applies the ops in one transaction, all or nothing, and returns the items they changed, whole, in
   * scratchpad order. Rejects with ScratchpadOpError (from @agentwire-chat/agents; its message is for the
   * model) when an op names an id the thread lacks or the scratchpad is full, and with not_found when
   * the thread is not the user's.
   */
  apply(userId: string, threadId: string, ops: ScratchpadOp[], now?: number): Promise<ScratchpadItem[]>;
  /** Applies the user's edit to one item and returns it whole; undefined when the user's thread has no such item. */
  edit(
    userId: string,
    threadId: string,
    itemId: string,
    edit: ScratchpadEdit,
    now?: number,
  ): Promise<ScratchpadItem | undefined>;
  /** Deletes every item of the user's thread; returns how many there were. */
  clear(userId: string, threadId: string): Promise<number>;
}

/**
 * Tools the user allowed for the rest of a thread (`allow_for_thread`), always through the owning user.
 * A grant lives as long as its thread.
 */
export interface ToolGrantsRepo {
  /** Allows the tool in the user's thread (again is a no-op); throws not_found when the thread is not the user's. */
  grant(userId: string, threadId: string, toolName: string, now?: number): Promise<void>;
  /** Whether the user allowed the tool in that thread of theirs. */
  has(userId: string, threadId: string, toolName: string): Promise<boolean>;
}

/** A thread's rolling summary and which of its history messages it stands for. */
export interface ThreadSummaryRecord {
  summary: string;
  /** The last history message the summary covers; the messages after it are sent verbatim. */
  throughMessageId: string;
  /** How many history messages the summary covers in all (from the thread's start). */
  messageCount: number;
}

/**
 * Rolling summaries, one per summarized point of a thread's branches (a summary through a message
 * serves every branch through it), always through the owning user.
 */
export interface SummariesRepo {
  /**
   * The summary of the branch whose message ids are `path` (first to leaf): the one through the latest
   * message of the path; undefined when none is, or the thread is not the user's.
   */
  get(userId: string, threadId: string, path: readonly string[]): Promise<ThreadSummaryRecord | undefined>;
  /** Creates or replaces the summary through `summary.throughMessageId`; throws not_found when the thread is not the user's. */
  put(userId: string, threadId: string, summary: ThreadSummaryRecord, now?: number): Promise<void>;
}

/** Plans create_plan made, always through the owning user: another user's plan reads as missing. */
export interface PlansRepo {
  /** Stores a plan made on the user's thread. */
  create(userId: string, plan: NewPlan, now?: number): Promise<PlanRow>;
  /** The plan if it exists and belongs to the user. */
  get(userId: string, planId: string): Promise<PlanRow | undefined>;
  /** The plans of the user's thread (only those in `status`, when given), oldest first; none for another user's thread. */
  listForThread(userId: string, threadId: string, status?: PlanStatus): Promise<PlanRow[]>;
  /** Sets the plan's status; false when the user has no such plan. */
  setStatus(userId: string, planId: string, status: PlanStatus, now?: number): Promise<boolean>;
  /** Moves the plan from `from` to `to` only while it is still `from` (one decision wins); false otherwise. */
  transition(
    userId: string,
    planId: string,
    from: PlanStatus,
    to: PlanStatus,
    now?: number,
  ): Promise<boolean>;
}

/** The data-access layer: every query the server makes goes through one of these, on either dialect. */
export interface Repositories {
  users: UsersRepo;
  apiTokens: ApiTokensRepo;
  threads: ThreadsRepo;
  messages: MessagesRepo;
  queuedMessages: QueuedMessagesRepo;
  turns: TurnsRepo;
  llmCalls: LlmCallsRepo;
  workflows: WorkflowsRepo;
  assets: AssetsRepo;
  memories: MemoriesRepo;
  plans: PlansRepo;
  scratchpad: ScratchpadRepo;
  summaries: SummariesRepo;
  toolGrants: ToolGrantsRepo;
}

import { z } from "zod";
import { MessageContent } from "./content.js";
import { ExecutionTreeSnapshot } from "./execution-tree.js";
import { TurnStatus } from "./turn-status.js";
import { TurnUsage } from "./usage.js";

export const MessageRole = z.enum(["user", "assistant", "tool"]);
export type MessageRole = z.infer<typeof MessageRole>;

export const StoredToolCall = z.object({
  id: z.string(),
  name: z.string(),
  args: z.unknown(),
});
export type StoredToolCall = z.infer<typeof StoredToolCall>;

/** How a stored message ended (a turn status); non-final rows are `complete`. */
export const MessageStatus = TurnStatus.exclude(["running"]);
export type MessageStatus = z.infer<typeof MessageStatus>;

/** A stored row of a thread, as sent in `message` frames and by `GET /api/threads/:id/messages`. */
export const StoredMessage = z.object({
  id: z.string(),
  thread_id: z.string(),
  role: MessageRole,
  content: MessageContent.nullable(),
  tool_calls: z.array(StoredToolCall).optional(),
  tool_call_id: z.string().optional(),
  is_error: z.boolean().optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  execution_tree: ExecutionTreeSnapshot.optional(),
  usage: TurnUsage.optional(),
  status: MessageStatus,
  created_at: z.string(),
  /** The turn that stored the row (absent for rows stored outside a turn). */
  turn_id: z.string().optional(),
  /** The message this one follows on its branch (null: the thread's first); a turn's rows chain. */
  parent_message_id: z.string().nullable().optional(),
  /**
   * Only where the message has alternatives (others follow the same parent): all of them, itself
   * included, oldest first. Set by `GET /api/threads/:id/messages`, not in `message` frames.
   */
  sibling_ids: z.array(z.string()).optional(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

/**
 * Whether work is live on a thread, as `GET /api/threads` and `thread_state` frames say it: the wire
 * word for a ThreadTurnState (`waiting_on_user` is turn status `waiting_user`).
 */
export const ThreadLiveState = z.enum(["running", "waiting_on_user", "idle"]);
export type ThreadLiveState = z.infer<typeof ThreadLiveState>;

export const ThreadSummary = z.object({
  id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /**
   * Whether work is live on the thread: a turn `running`, one `waiting_on_user` (for an answer or an
   * approval; `question` holds the question), or `idle`. Set by `GET /api/threads`.
   */
  state: ThreadLiveState.optional(),
  question: z.string().optional(),
  /** The latest `send_update` message of the running turn, when the server has seen one. */
  progress: z.string().optional(),
  /** The last message of the thread's current branch (absent: the thread has none yet). */
  current_leaf_id: z.string().optional(),
  /** How many messages wait in the thread's queue (set by `GET /api/threads` when any do). */
  queued: z.number().int().min(0).optional(),
});
export type ThreadSummary = z.infer<typeof ThreadSummary>;

/** How a message sent while a turn ran waits (see `OnBusy`): for the next turn, or to steer the running one. */
export const QueuedMode = z.enum(["queue", "steer", "interrupt"]);
export type QueuedMode = z.infer<typeof QueuedMode>;

/**
 * A message sent while a turn ran, stored but not yet on a branch (`GET /api/threads/:id/queue`); it
 * becomes the user message with the same id when its turn starts (or when it steers the running turn).
 */
export const QueuedMessage = z.object({
  message_id: z.string(),
  thread_id: z.string(),
  content: MessageContent,
  mode: QueuedMode,
  /** 1 for the next to start. */
  position: z.number().int().min(1),
  /** The message it will follow; absent: the current leaf when it starts. */
  parent_message_id: z.string().nullable().optional(),
  created_at: z.string(),
});
export type QueuedMessage = z.infer<typeof QueuedMessage>;

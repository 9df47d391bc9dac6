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
});
export type ThreadSummary = z.infer<typeof ThreadSummary>;

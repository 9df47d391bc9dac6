import type { ThreadView as TreeThreadView } from "@agentwire-chat/client";
import type { ThreadCost } from "./thread-cost.js";

// The tree the page draws is @agentwire-chat/client's; the page only adds what it loads over HTTP.
export {
  type ApprovalChild,
  type ApprovalDecision,
  type ApprovalView,
  type BudgetView,
  type CardChild,
  type CardStatus,
  type Child,
  type ClientCallView,
  type ContextView,
  type CutChild,
  emptyThread,
  emptyTurn,
  isRunning,
  isSubtask,
  lastTurn,
  type QuestionView,
  type QueuedMessageView,
  type TextChild,
  type ToolCard,
  type TurnView,
} from "@agentwire-chat/client";

/** Everything the page knows about one thread: the client's view, and the thread's cost. */
export type ThreadView = TreeThreadView & {
  /** What the thread's turns cost in all, from the server's ledger (loaded on open and after each turn). */
  cost?: ThreadCost;
  /** Each user message's parent (`parent_message_id`, null for a first message): what an edit of it follows. */
  parents?: Record<string, string | null>;
  /** Messages sent while a turn ran, until the server answers `message_queued` (or starts their turn). */
  sending?: SendingView[];
};

/** A message on its way to the queue: the server has not answered yet. */
export type SendingView = { requestId: string; text: string; mode: "queue" | "steer" | "interrupt" };

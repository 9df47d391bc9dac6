import type {
  AgentState,
  BudgetReason,
  QueuedMode,
  ScratchpadItem,
  ServerFrame,
  SpendWarning,
  TurnStatus,
  TurnUsage,
} from "@agentwire-chat/protocol";
import type { PlanDecisionView, PlanView } from "./plan-view.js";

/** A run of streamed text inside a container (the turn's root or a run_subtask card). */
export type TextChild = { kind: "text"; key: string; text: string; thinking: boolean };
/** A reference to a tool card, by its tool_call_id; the card itself lives in `TurnView.cards`. */
export type CardChild = { kind: "card"; id: string };
/** A gated tool's approval prompt, where it came up in the turn (approvals are not stored: live only). */
export type ApprovalChild = { kind: "approval"; id: string };
/**
 * What an attempt streamed before a server restart cut it (the turn's root's model call, or a
 * subtask's), kept apart from the attempt that followed it: shown collapsed, marked interrupted,
 * with the server's `detail` ("the server restarted; the turn starts again from your message").
 * Its `text` may be empty: the restart cut no text, and the detail still says what happened.
 */
export type CutChild = { kind: "cut"; key: string; text: string; detail: string };
export type Child = TextChild | CardChild | ApprovalChild | CutChild;

/**
 * How a tool call ended, in turn words. `stopped`: cut short by Stop or the budget (not failed
 * work); `interrupted`: still running when the server stopped or crashed (the stored tree says so);
 * `refused`, which no turn can be: never started (a run_subtask the budget or the depth limit
 * turned down).
 */
export type CardStatus =
  | Extract<TurnStatus, "running" | "complete" | "error" | "stopped" | "interrupted">
  | "refused";

/** One tool call at any depth. A run_subtask card holds its subtask's text and tool cards in `children`. */
export type ToolCard = {
  id: string;
  name: string;
  title?: string;
  parentId: string | null;
  depth: number;
  argsPreview: string;
  resultPreview?: string;
  status: CardStatus;
  durationMs?: number;
  /** ask_user: the question, shown with its answer (the result) in place of a tool card. */
  question?: string;
  /** send_update: the progress message, shown as a line in the turn instead of a tool card. */
  progress?: string;
  /** create_plan: the plan it made, shown as stages with step cards; its steps' subtasks are its children. */
  plan?: PlanView;
  /**
   * A run_subtask card holds its subtask's text while it runs; when it ends only its nested cards
   * and its result stay (text is not stored, so a reload shows the same), unless it was interrupted:
   * then its text is stored with it and stays.
   */
  children: Child[];
};

export type QuestionView = { toolCallId: string; question: string; answer?: string; resolved: boolean };

export type ApprovalDecision = "allow" | "allow_for_thread" | "deny";
export type ApprovalView = {
  approvalId: string;
  toolName: string;
  permissionClass: string;
  argsPreview: string;
  decision?: ApprovalDecision;
  resolved: boolean;
};

/** A client-side UI tool the server asked us to run (editor context). */
export type ClientCallView = { id: string; name: string; args: unknown; done: boolean };

export type BudgetView = { reason: BudgetReason | "unknown"; limit?: number; observed?: number };

/** One user message and everything the agent did in answer to it. */
export type TurnView = {
  key: string;
  /** request_id of the chat_message we sent, so an `error` for it finds this turn. */
  requestId?: string;
  user?: { id?: string; text: string };
  root: Child[];
  cards: Record<string, ToolCard>;
  running: boolean;
  /** The latest `agent_state`, in turn words (`waiting_user`). */
  state: AgentState | null;
  stateDetail?: string;
  /** What the latest frame showed the agent doing within `state`: streaming its answer or its reasoning. */
  activity?: "writing" | "reasoning";
  questions: QuestionView[];
  approvals: ApprovalView[];
  clientCalls: Record<string, ClientCallView>;
  budget?: BudgetView;
  usage?: TurnUsage;
  /** The turn's `usage` said a spend limit is 80 % used or more: show it to the user. */
  spendWarning?: SpendWarning;
  stopped: boolean;
  errors: string[];
  /** `live` turns were built from frames; `history` turns from stored rows (no subtask text). */
  source: "live" | "history";
  /** The root's text a server restart cut (its `interrupted` row), until `agent_state resumed` sets it apart. */
  cutText?: string;
  /** A history turn whose final answer was stored: a resume replay of it changes nothing. */
  settled?: boolean;
  /** The user message the turn answers (its user `message` frame, or `turn_started` for a regenerate). */
  userMessageId?: string;
  /** The turn's final assistant row (the one with `execution_tree`): what an edit of the next message follows. */
  answerMessageId?: string;
  /** The turn's first assistant row: a regenerate's new answer is its sibling. */
  firstAnswerId?: string;
  /** A regenerate's turn: the first answer row it branches away from (its new first row becomes that row's sibling). */
  replacesAnswerId?: string;
  /**
   * Messages that steered the running turn (`message` frames with `steered: true`), in order; `at` is
   * how many of `root`'s children came before it, so a view can draw it where it joined.
   */
  steered?: { id: string; text: string; at: number }[];
};

/** A message waiting in the thread's queue (sent with `onBusy` queue, steer or interrupt while a turn ran). */
export type QueuedMessageView = { messageId: string; content: string; mode: QueuedMode; position: number };

/** The latest `context_usage`: how full the model's context was at its last call. */
export type ContextView = {
  tokens: number;
  budget: number;
  summaryTokens: number;
  scratchpadTokens: number;
  historyTokens: number;
  messagesSummarized: number;
  messagesVerbatim: number;
  /** History messages the call left out (no summary covered them in time); 0 from older servers. */
  messagesDropped: number;
};

/** Everything the reducer knows about one thread; an app may add fields of its own (they are kept). */
export type ThreadView = {
  threadId: string | null;
  title?: string;
  /** Highest seq applied; null until the first framed turn event (a thread opened from history). */
  lastSeq: number | null;
  /** Frames that arrived after a gap in seq, held until the gap is filled (or given up on). */
  pending: ServerFrame[];
  turns: TurnView[];
  /**
   * The user message id of a settled history turn that a resume is replaying: its frames are
   * skipped, so a reopened thread keeps showing the stored execution_tree instead of a re-stream.
   */
  skipping?: string;
  /** The agent's scratchpad: loaded over HTTP when the thread opens, patched by `scratchpad_patch`. */
  scratchpad?: ScratchpadItem[];
  context?: ContextView;
  /** What this page decided on draft plans, by create_plan call id: a replayed review request stays decided. */
  planDecisions?: Record<string, PlanDecisionView>;
  /** Messages waiting for a later turn (or to steer the running one), next first. */
  queued: QueuedMessageView[];
  /**
   * For each message with alternatives (edits, regenerates), all its siblings, itself included, oldest
   * first: from the HTTP rows' `sibling_ids` (`siblingsFrom`), and updated when a new sibling streams.
   */
  siblings: Record<string, string[]>;
};

/** Calls that run a subtask and hold its text and cards: run_subtask, and a plan's steps (plan_step). */
export function isSubtask(name: string): boolean {
  return name === "run_subtask" || name === "plan_step";
}

export function emptyThread(threadId: string | null = null): ThreadView {
  return { threadId, lastSeq: null, pending: [], turns: [], queued: [], siblings: {} };
}

export function emptyTurn(key: string, source: TurnView["source"] = "live"): TurnView {
  return {
    key,
    root: [],
    cards: {},
    running: source === "live",
    state: null,
    questions: [],
    approvals: [],
    clientCalls: {},
    stopped: false,
    errors: [],
    source,
  };
}

/** The turn new frames apply to. */
export function lastTurn(view: ThreadView): TurnView | undefined {
  return view.turns[view.turns.length - 1];
}

export function isRunning(view: ThreadView): boolean {
  return lastTurn(view)?.running ?? false;
}

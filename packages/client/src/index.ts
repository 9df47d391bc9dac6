// The SDK: a client that owns the socket, reconnect and resume, and the turn's nested tree.
export { backoffDelay, type ReconnectOptions } from "./backoff.js";
export { ClientError, type ClientErrorCode, type ClientOnlyCode } from "./client-error.js";
export type { ConnectionState, HeartbeatOptions, WebSocketClass, WebSocketLike } from "./connection.js";
export {
  type Client,
  type ClientOptions,
  createClient,
  type PlanDecisionOptions,
  type SendOptions,
} from "./create-client.js";
export { FrameLog } from "./frame-log.js";
export { type ReadFrame, readFrame } from "./read-frame.js";
export { httpBase, socketUrl } from "./socket-url.js";
export type { ThreadState, Threads } from "./threads.js";
export { applyFrame, applyFrames, flushPending, hasGap } from "./tree/apply-frame.js";
export { addSibling, siblingsFrom } from "./tree/branches.js";
export { type CardCounts, countCards, type NestedCalls, nestedCalls } from "./tree/call-counts.js";
export { endStatus, progressFrom, questionFrom } from "./tree/card-outcome.js";
export { contentText } from "./tree/content-text.js";
export { setCutApart } from "./tree/cut-attempt.js";
export { decidePlanCard, undecidePlanCard } from "./tree/plan-frames.js";
export type { PlanDecisionView, PlanReviewView, PlanView } from "./tree/plan-view.js";
export { PREVIEW_CHARS, RESULT_CHARS, titleFrom } from "./tree/preview.js";
export { queuedFrom } from "./tree/queue-view.js";
export { finishTurn, reduceFrame, reduceFrames } from "./tree/reduce-frame.js";
export { mergeScratchpad, withScratchpad } from "./tree/scratchpad.js";
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
  type ThreadView,
  type ToolCard,
  type TurnView,
} from "./tree/thread-view.js";
export { appendChild, appendText, dropText, patchCard, updateChildren, upsertCard } from "./tree/tree-ops.js";
export { Turn, type TurnEnd, type TurnQueued } from "./turn.js";

import type { ServerFrame, ServerFrameOf, StoredMessage } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { RESTART_DETAIL } from "@agentwire-chat/protocol/restart-detail";
import { agentStateFromWire, chatResumedStatusFromWire } from "@agentwire-chat/protocol/turn-status-on-wire";
import { onAnswerRow, onBranchedUser, onTurnStarted } from "./branches.js";
import { endStatus, progressFrom, questionFrom } from "./card-outcome.js";
import { contentText } from "./content-text.js";
import { setCutApart } from "./cut-attempt.js";
import { onPlanCreated, onPlanReady, onPlanReview, onProgress } from "./plan-frames.js";
import { PREVIEW_CHARS, RESULT_CHARS, titleFrom } from "./preview.js";
import { onQueued, unqueue } from "./queue-view.js";
import { withScratchpad } from "./scratchpad.js";
import {
  type Child,
  emptyThread,
  emptyTurn,
  isSubtask,
  lastTurn,
  type ThreadView,
  type TurnView,
} from "./thread-view.js";
import { appendChild, appendText, dropText, patchCard, upsertCard } from "./tree-ops.js";

/**
 * Applies one in-order server frame to a thread (the seq gate in `apply-frame.ts` decides order and
 * duplicates). Pure: the same frames always give the same view.
 */
export function reduceFrame(view: ThreadView, frame: ServerFrame): ThreadView {
  if (view.skipping !== undefined && turnFrameTypes.has(frame.type)) {
    const over = frame.type === "chunk" && frame.done === true && frame.depth === 0;
    return over ? withoutSkipping(view) : view;
  }
  switch (frame.type) {
    case "thread":
      return { ...view, threadId: frame.thread_id ?? view.threadId, title: frame.title };
    case "message":
      return frame.steered ? onSteered(view, frame.message) : onMessage(view, frame.message);
    case "turn_started":
      return onTurnStarted(unqueue(view, frame.user_message_id), frame);
    case "message_queued":
      return onQueued(view, frame);
    case "queued_message_cancelled":
      return unqueue(view, frame.message_id);
    case "chunk":
      return onTurn(view, (t) => onChunk(t, frame));
    case "tool_call_update":
      return onTurn(view, (t) => onToolUpdate(t, frame));
    case "agent_state":
      if (frame.state === "resumed" && lastTurn(view)?.running === false) return reopen(view, frame);
      return onTurn(view, (t) => {
        const state = agentStateFromWire(frame.state);
        // Leaving waiting_user means the pending decisions were made (maybe in another tab).
        const left = t.state === "waiting_user" && state !== "waiting_user";
        const { activity: _activity, ...rest } = t;
        const next = { ...rest, state, stateDetail: frame.detail };
        const settled = left ? resolveApprovals(next) : next;
        return frame.state === "resumed" ? onRestart(settled, frame) : settled;
      });
    case "question":
      return onTurn(view, (t) =>
        t.questions.some((q) => q.toolCallId === frame.tool_call_id)
          ? t
          : {
              ...t,
              questions: [
                ...t.questions,
                { toolCallId: frame.tool_call_id, question: frame.question, resolved: false },
              ],
            },
      );
    case "tool_approval_request":
      return onTurn(view, (t) =>
        t.approvals.some((a) => a.approvalId === frame.approval_id)
          ? t
          : {
              // The prompt stays where it came up, so the answer after it reads below it.
              ...appendChild(t, null, { kind: "approval", id: frame.approval_id }),
              approvals: [
                ...t.approvals,
                {
                  approvalId: frame.approval_id,
                  toolName: frame.tool_name,
                  permissionClass: frame.permission_class,
                  argsPreview: preview(frame.args, PREVIEW_CHARS),
                  resolved: false,
                },
              ],
            },
      );
    case "tool_call":
      return onTurn(view, (t) => ({
        ...t,
        clientCalls: {
          ...t.clientCalls,
          [frame.tool_call_id]: {
            id: frame.tool_call_id,
            name: frame.name,
            args: frame.args,
            done: t.clientCalls[frame.tool_call_id]?.done ?? false,
          },
        },
      }));
    case "budget_exceeded":
      return onTurn(view, (t) => ({
        ...t,
        budget: { reason: frame.reason, limit: frame.limit, observed: frame.observed },
      }));
    case "usage": {
      const { type: _type, thread_id: _thread, seq: _seq, spend_warning, ...usage } = frame;
      return onTurn(view, (t) => ({ ...t, usage, ...(spend_warning && { spendWarning: spend_warning }) }));
    }
    case "generation_stopped":
      return onTurn(view, (t) => ({ ...t, stopped: true }));
    case "error": {
      // An error after the turn ended (a refused resume, busy) is noted on it; it never starts a turn.
      const turn = lastTurn(view) ?? { ...emptyTurn(`e:${view.lastSeq ?? 0}`), running: false };
      // The final row (status error) comes before the error frame that says why: the reason replaces it.
      const generic = frame.thread_id !== undefined ? turn.errors.indexOf("turn ended: error") : -1;
      const kept = generic === -1 ? turn.errors : turn.errors.filter((_, i) => i !== generic);
      const errors = [...kept, `${frame.code}: ${frame.message}`];
      return { ...view, turns: [...view.turns.slice(0, view.turns.length ? -1 : 0), { ...turn, errors }] };
    }
    case "chat_resumed": {
      if (view.skipping !== undefined) return withoutSkipping(view);
      const turn = lastTurn(view);
      const status = chatResumedStatusFromWire(frame.status);
      // The server no longer runs this turn (ended while we were away, or lost in a restart).
      if (turn?.running && status !== "running" && status !== "waiting_user") {
        const ended = finishTurn(turn);
        // The wire says only that it ended (read as complete); its stored row says how.
        const note = status === "complete" ? [] : [`turn ${frame.status}`];
        return replaceLast(view, { ...ended, errors: [...ended.errors, ...note] });
      }
      return view;
    }
    case "plan_created":
      return onTurn(view, (t) => onPlanCreated(t, frame));
    case "plan_ready_for_review":
      return onTurn(view, (t) => onPlanReady(t, frame, view.planDecisions?.[frame.tool_call_id]));
    case "plan_review":
      return onTurn(view, (t) => onPlanReview(t, frame));
    case "progress_update":
      return onTurn(view, (t) => onProgress(t, frame));
    case "scratchpad_patch":
      // A clear drops every item first; ids start again at s1 after it.
      return withScratchpad(frame.cleared ? { ...view, scratchpad: [] } : view, frame.items);
    case "context_usage":
      return {
        ...view,
        context: {
          tokens: frame.tokens,
          budget: frame.budget,
          summaryTokens: frame.summary_tokens,
          scratchpadTokens: frame.scratchpad_tokens,
          historyTokens: frame.history_tokens,
          messagesSummarized: frame.messages_summarized,
          messagesVerbatim: frame.messages_verbatim,
          messagesDropped: frame.messages_dropped ?? 0,
        },
      };
    case "job_update":
    case "node_update":
    case "thread_state":
    case "workflow_updated":
    case "pong":
      // Workflow runs and keep-alives have no place in the chat transcript; the thread list
      // takes thread_state, an editor workflow_updated (the controller hands them there before
      // frames reach a thread).
      return view;
  }
}

/** A fresh view with the frames applied in order (tests and replays). */
export function reduceFrames<V extends ThreadView = ThreadView>(
  frames: readonly ServerFrame[],
  view: V = emptyThread() as V,
): V {
  // Like applyFrame: the reducer keeps an app's own fields on the view.
  return frames.reduce<ThreadView>(reduceFrame, view) as V;
}

const INTERRUPTED = "turn ended: interrupted";

/**
 * The server restarted and the running turn goes on: the cut model call's interrupted row ended
 * nothing, and what it streamed is set apart from the new attempt, with the server's detail.
 */
function onRestart(turn: TurnView, frame: ServerFrameOf<"agent_state">): TurnView {
  const { cutText, ...rest } = turn;
  const errors = rest.errors.filter((e) => e !== INTERRUPTED);
  // Nothing of the turn seen here yet (a continue_turn's first frame): nothing to set apart from.
  if (cutText === undefined && rest.root.length === 0) return { ...rest, errors };
  return setCutApart({ ...rest, errors }, null, frame.detail ?? RESTART_DETAIL.continues, cutText ?? "");
}

/**
 * The last turn, which had ended, goes on (`continue_turn` after a limit): it runs again, and the
 * limit's notice goes (the turn's new end brings its own). A stored turn that ended past its limit
 * already holds what follows (a resume replaying it): its frames are skipped up to their `done`.
 */
function reopen(view: ThreadView, frame: ServerFrameOf<"agent_state">): ThreadView {
  const turn = lastTurn(view) as TurnView;
  const limited = (e: string) =>
    e.startsWith("turn ended: iteration_limit") || e.startsWith("iteration_limit:");
  const atLimit = turn.budget !== undefined || turn.errors.some(limited);
  if (turn.settled && !atLimit) return { ...view, skipping: turn.user?.id ?? turn.key };
  const { budget: _budget, activity: _activity, settled: _settled, ...rest } = turn;
  const errors = turn.errors.filter((e) => !limited(e));
  const state = agentStateFromWire(frame.state);
  return replaceLast(view, { ...rest, running: true, state, stateDetail: frame.detail, errors });
}

function onMessage(view: ThreadView, message: StoredMessage): ThreadView {
  if (message.role === "user")
    return onBranchedUser(onUserMessage(unqueue(view, message.id), message), message);
  if (message.role !== "assistant") return view;
  let rowed = view;
  // Text arrived as chunks; a stored row only adds how the turn ended.
  const next = onTurn(view, (turn) => {
    const [v, answered] = onAnswerRow(view, turn, message);
    rowed = v;
    const t = withInterruptedCards(answered, message);
    switch (message.status) {
      case "stopped":
        return { ...t, stopped: true };
      case "budget_exceeded":
        return t.budget ? t : { ...t, budget: { reason: "unknown" } };
      case "interrupted":
        // A restart's cut model call, or the turn's end: `agent_state resumed` after it says which.
        return { ...t, errors: [...t.errors, INTERRUPTED], cutText: contentText(message.content) };
      case "error":
      case "iteration_limit":
        return { ...t, errors: [...t.errors, `turn ended: ${message.status}`] };
      default:
        return t;
    }
  });
  // A regenerate's first row made a new sibling: the siblings are the view's, the rest the turn's.
  return rowed === view ? next : { ...next, siblings: rowed.siblings };
}

/** A queued message joined the running turn (steer): noted where it joined, not a new turn. */
function onSteered(view: ThreadView, message: StoredMessage): ThreadView {
  return onTurn(unqueue(view, message.id), (t) =>
    t.steered?.some((s) => s.id === message.id)
      ? t
      : {
          ...t,
          steered: [
            ...(t.steered ?? []),
            { id: message.id, text: contentText(message.content), at: t.root.length },
          ],
        },
  );
}

/**
 * The calls an interrupted turn cut short, as its stored tree marks them: they never got their end
 * (a crash) or ended as cancelled (a shutdown), and show interrupted with their text, as a reload does.
 */
function withInterruptedCards(turn: TurnView, message: StoredMessage): TurnView {
  let t = turn;
  for (const node of message.execution_tree?.nodes ?? []) {
    const card = t.cards[node.id];
    if (node.status !== "interrupted" || !card) continue;
    t = patchCard(t, node.id, { status: "interrupted", durationMs: node.duration_ms });
    const hasText = card.children.some((child) => child.kind === "text" && !child.thinking);
    if (!hasText) t = appendText(t, node.id, node.text ?? "", false);
  }
  return t;
}

function onUserMessage(view: ThreadView, message: StoredMessage): ThreadView {
  const user = { id: message.id, text: contentText(message.content) };
  const last = lastTurn(view);
  // Our own optimistic turn, now confirmed by the server.
  if (last?.running && last.source === "live" && last.user && last.user.id === undefined) {
    return replaceLast(view, { ...last, user, userMessageId: message.id });
  }
  const index = view.turns.findIndex((t) => t.user?.id === message.id);
  // A replay of a turn whose answer we already have from history: keep the stored version.
  if (view.turns[index]?.settled) return { ...view, skipping: message.id };
  // A replay of a turn that was still running when we loaded it: the replay is complete, rebuild from it.
  const kept = index >= 0 ? view.turns.slice(0, index) : view.turns;
  return { ...view, turns: [...kept, { ...emptyTurn(`u:${message.id}`), user, userMessageId: message.id }] };
}

function onChunk(turn: TurnView, frame: ServerFrameOf<"chunk">): TurnView {
  if (frame.done === true && frame.depth === 0) {
    return finishTurn(appendText(turn, frame.parent_id, frame.content, frame.thinking === true));
  }
  if (frame.content === "") return turn;
  const withText = appendText(turn, frame.parent_id, frame.content, frame.thinking === true);
  return { ...withText, activity: frame.thinking === true ? "reasoning" : "writing" };
}

function onToolUpdate(turn: TurnView, frame: ServerFrameOf<"tool_call_update">): TurnView {
  const title = titleFrom(frame.title, frame.args);
  const existing = turn.cards[frame.tool_call_id];
  if (existing && frame.status === "start" && frame.attempt !== undefined) {
    // A restart cut the subtask: what it streamed since its last nested call is that attempt's.
    const continues = existing.children.some((child) => child.kind === "card");
    const detail = continues ? RESTART_DETAIL.subtaskContinues : RESTART_DETAIL.subtaskRerun;
    return setCutApart(turn, existing.id, detail);
  }
  let next = turn;
  if (frame.status === "start" || !existing) {
    const question = frame.name === "ask_user" ? questionFrom(frame.args) : undefined;
    const progress = frame.name === "send_update" ? progressFrom(frame.args) : undefined;
    // A call starting ends the text run the status line called "writing".
    const { activity: _activity, ...rest } = turn;
    next = upsertCard(frame.status === "start" ? rest : turn, {
      id: frame.tool_call_id,
      name: frame.name,
      parentId: frame.parent_id,
      depth: frame.depth,
      argsPreview:
        frame.args === undefined ? (existing?.argsPreview ?? "") : preview(frame.args, PREVIEW_CHARS),
      status: "running",
      children: [],
      ...(title !== undefined && { title }),
      ...(question !== undefined && { question: existing?.question ?? question }),
      ...(progress !== undefined && { progress: existing?.progress ?? progress }),
    });
  }
  return frame.status === "start" ? next : onToolEnd(next, frame, title);
}

function onToolEnd(turn: TurnView, frame: ServerFrameOf<"tool_call_update">, title?: string): TurnView {
  const status = endStatus(frame.name, frame.result, frame.is_error);
  // A subtask's result stands for its text, unless Stop or the budget cut it short: then the text
  // is the answer so far, and it is kept (as the footer says, and as the stored tree holds it).
  const ended = isSubtask(frame.name) && status !== "stopped" ? dropText(turn, frame.tool_call_id) : turn;
  const patched = patchCard(ended, frame.tool_call_id, {
    status,
    resultPreview: preview(frame.result, RESULT_CHARS),
    ...(frame.duration_ms !== undefined && { durationMs: frame.duration_ms }),
    ...(title !== undefined && { title }),
  });
  // A question or client tool is answered once its tool call ends.
  const waiting = patched.questions.some((q) => q.toolCallId === frame.tool_call_id && !q.resolved);
  const call = patched.clientCalls[frame.tool_call_id];
  return {
    ...patched,
    questions: waiting
      ? patched.questions.map((q) => (q.toolCallId === frame.tool_call_id ? { ...q, resolved: true } : q))
      : patched.questions,
    clientCalls:
      call && !call.done
        ? { ...patched.clientCalls, [call.id]: { ...call, done: true } }
        : patched.clientCalls,
  };
}

/**
 * The turn is over: nothing is pending any more, running cards never got their end, and the turn
 * converges on what a reload rebuilds from the stored rows: subtask cards keep only their cards
 * and results (and the text of one cut short), and reasoning text (never stored) goes.
 */
export function finishTurn(turn: TurnView): TurnView {
  const cards = Object.fromEntries(
    Object.entries(turn.cards).map(([id, c]) => {
      // An interrupted or cut-short call's text is stored with it (a reload shows it): only its reasoning goes.
      const cut = c.status === "interrupted" || c.status === "stopped";
      const kept = (child: Child) => child.kind !== "text" || (cut && !child.thinking);
      const children = joinText(c.children.filter(kept));
      const status = c.status === "running" ? "complete" : c.status;
      return [
        id,
        children.length === c.children.length && status === c.status ? c : { ...c, status, children },
      ];
    }),
  ) as TurnView["cards"];
  const { activity: _activity, cutText: _cut, ...rest } = turn;
  return {
    ...resolveApprovals(rest),
    root: turn.root.filter((child) => child.kind !== "text" || !child.thinking),
    cards,
    running: false,
    state: "idle",
    questions: turn.questions.map((q) => ({ ...q, resolved: true })),
    clientCalls: Object.fromEntries(
      Object.entries(turn.clientCalls).map(([id, c]) => [id, { ...c, done: true }]),
    ),
  };
}

/** Adjacent text runs as one (the reasoning between them went), as a reload draws the stored text. */
function joinText(children: Child[]): Child[] {
  const out: Child[] = [];
  for (const child of children) {
    const last = out[out.length - 1];
    if (child.kind === "text" && last?.kind === "text")
      out[out.length - 1] = { ...last, text: last.text + child.text };
    else out.push(child);
  }
  return out;
}

function resolveApprovals(turn: TurnView): TurnView {
  if (turn.approvals.every((a) => a.resolved)) return turn;
  return { ...turn, approvals: turn.approvals.map((a) => ({ ...a, resolved: true })) };
}

/** Applies an update to the current turn, starting one when frames arrive without a user message. */
function onTurn(view: ThreadView, update: (turn: TurnView) => TurnView): ThreadView {
  const last = lastTurn(view);
  if (last?.running) return replaceLast(view, update(last));
  const fresh = emptyTurn(`t:${view.turns.length}:${view.lastSeq ?? 0}`);
  return { ...view, turns: [...view.turns, update(fresh)] };
}

/** Frames that belong to a turn (skipped while a settled turn is replayed). */
const turnFrameTypes = new Set<ServerFrame["type"]>([
  "message",
  "turn_started",
  "chunk",
  "tool_call_update",
  "agent_state",
  "question",
  "tool_approval_request",
  "tool_call",
  "budget_exceeded",
  "usage",
  "generation_stopped",
  "error",
  "plan_created",
  "plan_ready_for_review",
  "plan_review",
  "progress_update",
]);

function withoutSkipping(view: ThreadView): ThreadView {
  const { skipping: _skipping, ...rest } = view;
  return rest;
}

function replaceLast(view: ThreadView, turn: TurnView): ThreadView {
  return { ...view, turns: [...view.turns.slice(0, -1), turn] };
}

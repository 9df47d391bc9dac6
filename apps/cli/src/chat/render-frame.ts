import {
  type Child,
  type CutChild,
  countCards,
  lastTurn,
  type NestedCalls,
  nestedCalls,
  reduceFrame,
} from "@agentwire-chat/client";
import type {
  AgentState,
  ExecutionTreeNode,
  ServerFrame,
  SpendWarning,
  ToolCallUpdateFrame,
} from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { agentStateFromWire } from "@agentwire-chat/protocol/turn-status-on-wire";
import { planLines } from "./plan-lines.js";
import { scratchpadLines } from "./scratchpad-lines.js";
import { formatDuration, plural, terminalText, wrapWords } from "./terminal-text.js";
import { type CallInfo, callPath, type TurnPhase, type TurnState } from "./turn-state.js";

/** How a turn is shown. */
export type RenderOptions = {
  /** Show subtask (and tool) results under their finish lines. */
  verbose: boolean;
  /** A status area shows running calls: no `▸` start lines. Off when stdout is not a terminal. */
  live: boolean;
  /** The terminal's width: long lines wrap at word boundaries under their own indent (none: no wrap). */
  columns?: number;
};

// A terminal line has room for little beside the tool name; an error deserves more.
const ARGS_CHARS = 60;
const ERROR_CHARS = 240;
const TOOL_RESULT_CHARS = 240;
const ASK_USER = "ask_user";
const RUN_SUBTASK = "run_subtask";
// A plan's step is a subtask too (under its create_plan call), shown by its title.
const PLAN_STEP = "plan_step";
// Its message shows once, as the progress_update line.
const SEND_UPDATE = "send_update";

/**
 * Turns one frame into the text it adds for good (the status area is drawn from the state instead).
 * Root text streams as is; each depth-0 call gets a finish line naming it, with its real wait; what
 * happens below depth 0 is folded into its root call, whose line counts it (the SDK's `nestedCalls`, as
 * the web page does) and lists the nested calls that failed or were refused, each by its path.
 * `now` is the local clock in ms, to measure waits the frames cannot know (a call that waited for the user).
 */
export function renderFrame(
  frame: ServerFrame,
  state: TurnState,
  options: RenderOptions,
  now: number,
): string {
  const line = (text: string) => {
    const out = `${state.atLineStart ? "" : "\n"}${text}\n`;
    state.atLineStart = true;
    return out;
  };
  state.view = reduceFrame(state.view, frame);
  switch (frame.type) {
    case "chunk": {
      if (frame.thinking) {
        state.phase = "thinking";
        return "";
      }
      if (!frame.content) return "";
      state.streamed = true;
      const content = terminalText(frame.content);
      if (frame.depth > 0) {
        if (frame.parent_id) noteSubtaskText(state, frame.parent_id, content);
        return "";
      }
      state.phase = "writing";
      state.atLineStart = content.endsWith("\n");
      return content;
    }
    case "tool_call_update":
      if (frame.attempt !== undefined && state.calls.has(frame.tool_call_id))
        return restarted(frame, state, options, line);
      return frame.status === "start"
        ? callStarted(frame, state, options, now, line)
        : callEnded(frame, state, options, now, line);
    case "agent_state": {
      state.phase = phaseOf(agentStateFromWire(frame.state));
      const cut = frame.state === "resumed" ? lastCut(lastTurn(state.view)?.root) : undefined;
      // A restart cut the answer: the new attempt starts below the line that says so.
      return cut ? line(`↯ ${cut.text ? "interrupted: " : ""}${terminalText(cut.detail)}`) : "";
    }
    case "message":
      return frame.message.role === "assistant" && frame.message.status === "interrupted"
        ? interruptedCalls(frame.message.execution_tree?.nodes ?? [], state, options, line)
        : "";
    case "question": {
      const asker = askingSubtask(frame.tool_call_id, state);
      return line(`? ${asker ? `${asker} asks: ` : ""}${terminalText(frame.question)}`);
    }
    case "progress_update":
      return line(`${"  ".repeat(frame.depth)}› ${terminalText(frame.message)}`);
    case "budget_exceeded":
      return line(`! budget exceeded: ${frame.reason} (limit ${frame.limit}, reached ${frame.observed})`);
    case "error":
      state.failed = true;
      return line(`! ${frame.code}: ${terminalText(frame.message)}`);
    case "generation_stopped":
      state.stopped = true;
      return line("■ stopped");
    case "usage":
      return line(
        `· ${tokensText(frame, state)}, ${plural(frame.llm_calls, "model call")}, ` +
          `${callsText(frame, state)}${frame.cost_known ? `, $${frame.cost_usd.toFixed(4)}` : ""}` +
          (frame.spend_warning ? `\n${spendWarningText(frame.spend_warning)}` : ""),
      );
    case "thread":
      return line(`· thread ${frame.thread_id}`);
    case "plan_created":
      return line(
        [`· plan (${frame.execution_mode.replace("_", " ")})`, ...planLines(frame.plan)].join("\n"),
      );
    case "plan_ready_for_review":
      return line(
        `· the plan waits for your review (plan ${terminalText(frame.plan.id)}): approve or revise it`,
      );
    case "plan_review":
      return line(
        `· plan review ${frame.round}: ${frame.verdict === "approve" ? "approved" : "rejected"}` +
          (frame.notes ? ` — ${terminalText(preview(frame.notes, ERROR_CHARS))}` : ""),
      );
    case "scratchpad_patch":
      if (frame.cleared) return line("· scratchpad cleared");
      return frame.items.length > 0 ? line(["· scratchpad", ...scratchpadLines(frame.items)].join("\n")) : "";
    default:
      return "";
  }
}

function callStarted(
  frame: ToolCallUpdateFrame,
  state: TurnState,
  options: RenderOptions,
  now: number,
  line: (text: string) => string,
): string {
  const parent = frame.parent_id === null ? undefined : state.calls.get(frame.parent_id);
  // A subtask by its title; ask_user by its name alone (its question shows once, as the question).
  const label =
    frame.name === RUN_SUBTASK || frame.name === PLAN_STEP
      ? terminalText(frame.title ?? preview(frame.args, ARGS_CHARS))
      : frame.name === ASK_USER
        ? ASK_USER
        : `${frame.name} ${terminalText(preview(frame.args, ARGS_CHARS))}`.trim();
  const call: CallInfo = {
    name: frame.name,
    label,
    parentId: frame.parent_id,
    rootId:
      frame.depth === 0 ? frame.tool_call_id : (parent?.rootId ?? frame.parent_id ?? frame.tool_call_id),
    depth: frame.depth,
    startedAt: now,
    ended: false,
  };
  state.calls.set(frame.tool_call_id, call);
  if (frame.depth > 0) {
    const root = state.calls.get(call.rootId);
    if (root) {
      root.activity = frame.name === RUN_SUBTASK || frame.name === PLAN_STEP ? `› ${label}` : frame.name;
    }
    return "";
  }
  state.phase = "working";
  // The question frame shows an ask_user call; a status area shows the others while they run.
  if (frame.name === ASK_USER || frame.name === SEND_UPDATE || options.live) return "";
  return line(`  ▸ ${label}`);
}

function callEnded(
  frame: ToolCallUpdateFrame,
  state: TurnState,
  options: RenderOptions,
  now: number,
  line: (text: string) => string,
): string {
  const call = state.calls.get(frame.tool_call_id);
  if (call) call.ended = true;
  if ((frame.name === ASK_USER || frame.name === SEND_UPDATE) && !frame.is_error) return "";
  const name = call ? (frame.depth > 0 ? callPath(state, call) : call.label) : frame.name;
  const indent = "  ".repeat(frame.depth + 1);
  const isSubtask = frame.name === RUN_SUBTASK || frame.name === PLAN_STEP;
  // A nested call that failed or was refused shows under its root call's finish line, on its path.
  if (frame.depth > 0 && (frame.is_error || !(options.verbose && isSubtask))) return "";
  const turn = lastTurn(state.view);
  const below = turn && frame.depth === 0 ? nestedCalls(turn, frame.tool_call_id) : undefined;
  const time = `(${formatDuration(waitOf(frame, call, now))}${below ? countsText(below) : ""})`;
  const problems = below ? problemLines(below, state, options) : "";
  if (frame.is_error) {
    const error = `${indent}✗ ${name} ${time}: ${terminalText(preview(frame.result, ERROR_CHARS))}`;
    return line(wrapWords(error, options.columns, `${indent}  `)) + problems;
  }
  const finished = line(`${indent}✓ ${name} ${time}`) + problems;
  if (!options.verbose) return finished;
  const result = isSubtask
    ? resultText(frame.result)
    : terminalText(preview(frame.result, TOOL_RESULT_CHARS));
  if (!result) return finished;
  const body = result
    .split("\n")
    .map((text) => `${indent}  ${text}`.trimEnd())
    .join("\n");
  return `${finished}${body}\n`;
}

/**
 * The frame's duration is the server's, which counts a wait for the user; an older server resumed
 * such a call with a fresh clock, so the wait seen here between its start and end counts when longer.
 */
function waitOf(frame: ToolCallUpdateFrame, call: CallInfo | undefined, now: number): number {
  return Math.max(frame.duration_ms ?? 0, call ? now - call.startedAt : 0);
}

/** `, 2 nested calls, 1 failed, 1 refused`: the count the web page shows on the card too. */
function countsText(below: NestedCalls): string {
  if (below.calls === 0) return "";
  const failed = below.failed.length > 0 ? `, ${below.failed.length} failed` : "";
  const refused = below.refused.length > 0 ? `, ${below.refused.length} refused` : "";
  return `, ${plural(below.calls, "nested call")}${failed}${refused}`;
}

/** One line per nested call that failed (✗) or was refused (⊘), by its path, in tree order. */
function problemLines(below: NestedCalls, state: TurnState, options: RenderOptions): string {
  const cards = [...below.failed, ...below.refused].sort((a, b) => order(state, a.id) - order(state, b.id));
  return cards
    .map((card) => {
      const call = state.calls.get(card.id);
      const name = call ? callPath(state, call) : terminalText(card.title ?? card.name);
      const indent = "  ".repeat((call?.depth ?? card.depth) + 1);
      const glyph = card.status === "refused" ? "⊘" : "✗";
      const time = card.durationMs === undefined ? "" : ` (${formatDuration(card.durationMs)})`;
      const why = terminalText(preview(card.resultPreview ?? "", ERROR_CHARS));
      return `${wrapWords(`${indent}${glyph} ${name}${time}: ${why}`, options.columns, `${indent}  `)}\n`;
    })
    .join("");
}

/** Where a call started among the turn's calls (the tree's order). */
function order(state: TurnState, id: string): number {
  return [...state.calls.keys()].indexOf(id);
}

/**
 * The calls an interrupted turn cut short, from its stored tree: those that never got an end frame
 * (a crash) get the line their end would have, `↯`, with the server's time up to the cut; with
 * --verbose, nested ones too, and the text each had streamed. A call already shown ended is not repeated.
 */
function interruptedCalls(
  nodes: ExecutionTreeNode[],
  state: TurnState,
  options: RenderOptions,
  line: (text: string) => string,
): string {
  let out = "";
  for (const node of nodes) {
    const call = state.calls.get(node.id);
    if (node.status !== "interrupted" || call?.ended) continue;
    if (call) call.ended = true;
    const depth = call?.depth ?? (node.parent_id === null ? 0 : 1);
    if (depth > 0 && !options.verbose) continue;
    const name = call
      ? depth > 0
        ? callPath(state, call)
        : call.label
      : terminalText(node.title ?? node.name);
    const indent = "  ".repeat(depth + 1);
    out += line(`${indent}↯ ${name} (${formatDuration(node.duration_ms)}): interrupted`);
    const text = options.verbose && node.text ? terminalText(node.text).trim() : "";
    if (text)
      out += `${text
        .split("\n")
        .map((t) => `${indent}  ${t}`.trimEnd())
        .join("\n")}\n`;
  }
  return out;
}

/** The cut attempt a restart just set apart at the end of a container's children, if any. */
function lastCut(children: Child[] | undefined): CutChild | undefined {
  const last = children?.at(-1);
  return last?.kind === "cut" ? last : undefined;
}

/**
 * A subtask a restart cut goes on as a new attempt: a line on its path with the server's reason,
 * and with --verbose the text the cut attempt had streamed.
 */
function restarted(
  frame: ToolCallUpdateFrame,
  state: TurnState,
  options: RenderOptions,
  line: (text: string) => string,
): string {
  const call = state.calls.get(frame.tool_call_id) as CallInfo;
  const cut = lastCut(lastTurn(state.view)?.cards[frame.tool_call_id]?.children);
  if (!cut) return "";
  const indent = "  ".repeat(frame.depth + 1);
  const name = frame.depth > 0 ? callPath(state, call) : call.label;
  const out = line(
    wrapWords(`${indent}↯ ${name}: ${terminalText(cut.detail)}`, options.columns, `${indent}  `),
  );
  const text = options.verbose ? terminalText(cut.text).trim() : "";
  if (!text) return out;
  return `${out}${text
    .split("\n")
    .map((t) => `${indent}  ${t}`.trimEnd())
    .join("\n")}\n`;
}

/**
 * Which subtask asks a question, by its place in the tree, when the turn runs several side by side
 * (then an answer could go to the wrong one); undefined for the root's own or a lone subtask's question.
 */
function askingSubtask(toolCallId: string, state: TurnState): string | undefined {
  const call = state.calls.get(toolCallId);
  const parent = call?.parentId ? state.calls.get(call.parentId) : undefined;
  if (!parent) return undefined;
  const subtasks = [...state.calls.values()].filter(
    (c) => c.depth === 0 && (c.name === RUN_SUBTASK || c.name === PLAN_STEP),
  );
  return subtasks.length > 1 ? callPath(state, parent) : undefined;
}

/**
 * The turn's tokens. Model calls made and no token counted means none was reported (a call stopped,
 * interrupted or failed mid-stream never gets its provider's report; some providers send none):
 * "0 in / 0 out" would be false, so the line says the count is missing instead.
 */
function tokensText(
  usage: { input_tokens: number; output_tokens: number; llm_calls: number },
  state: TurnState,
): string {
  if (usage.llm_calls > 0 && usage.input_tokens === 0 && usage.output_tokens === 0)
    return `tokens not reported${state.stopped && state.streamed ? " (stopped mid-answer)" : ""}`;
  return `${usage.input_tokens} in / ${usage.output_tokens} out tokens`;
}

/**
 * `2 tool calls, 3 subtasks (1 refused)`: counted from the turn's cards with the SDK's `countCards`,
 * as the web page's footer counts them; the server's counts when the turn showed no cards.
 */
function callsText(usage: { tool_calls: number; subtasks: number }, state: TurnState): string {
  const turn = lastTurn(state.view);
  const counts = turn ? countCards(turn) : { tools: 0, subtasks: 0, refused: 0 };
  const known = counts.tools + counts.subtasks + counts.refused > 0;
  const tools = known ? counts.tools : Math.max(0, usage.tool_calls - usage.subtasks);
  const subtasks = (known ? counts.subtasks : usage.subtasks) + counts.refused;
  const refused = counts.refused > 0 ? ` (${counts.refused} refused)` : "";
  return `${plural(tools, "tool call")}${subtasks > 0 ? `, ${plural(subtasks, "subtask")}${refused}` : ""}`;
}

function resultText(result: unknown): string {
  if (result === undefined) return "";
  return terminalText(typeof result === "string" ? result : JSON.stringify(result, null, 2)).trim();
}

const TEXT_TAIL = 200;

/** Keeps the last line of a subtask's text as its root call's activity. */
function noteSubtaskText(state: TurnState, subtaskId: string, content: string): void {
  const text = ((state.subtaskText.get(subtaskId) ?? "") + content).slice(-TEXT_TAIL);
  state.subtaskText.set(subtaskId, text);
  const lastLine = text.split("\n").findLast((l) => l.trim() !== "");
  const subtask = state.calls.get(subtaskId);
  const root = subtask ? state.calls.get(subtask.rootId) : undefined;
  if (root && lastLine) root.activity = `“${lastLine.trim()}”`;
}

/** The status line's phase for the server's agent_state (`queued`: the server is busy, the turn waits). */
function phaseOf(state: AgentState): TurnPhase {
  switch (state) {
    case "executing":
      return "working";
    case "waiting_user":
      return "waiting_user";
    case "queued":
      return "queued";
    default:
      return "thinking";
  }
}

/** `! spend: $4.10 of the $5.00 daily limit used (resets 2026-11-29T00:00:00Z)`; a thread's limit does not reset. */
function spendWarningText(warning: SpendWarning): string {
  const which = warning.limit === "user_daily" ? "daily" : "thread";
  const used = `! spend: $${warning.spent_usd.toFixed(2)} of the $${warning.limit_usd.toFixed(2)} ${which} limit used`;
  if (warning.resets_at === null) return used;
  return `${used} (resets ${new Date(warning.resets_at).toISOString().replace(".000Z", "Z")})`;
}

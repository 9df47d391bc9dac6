import {
  appendChild,
  appendText,
  contentText,
  endStatus,
  PREVIEW_CHARS,
  patchCard,
  progressFrom,
  questionFrom,
  queuedFrom,
  RESULT_CHARS,
  siblingsFrom,
  updateChildren,
  upsertCard,
} from "@agentwire-chat/client";
import type { ExecutionTreeNode, Plan, QueuedMessage, StoredMessage } from "@agentwire-chat/protocol";
import { preview } from "@agentwire-chat/protocol/preview";
import { RESTART_DETAIL } from "@agentwire-chat/protocol/restart-detail";
import { type PlanView, planFrom, planFromSummary, planIdOf, planResultFields } from "./plan-view.js";
import { type Child, emptyTurn, type ThreadView, type ToolCard, type TurnView } from "./thread-view.js";

/**
 * Rebuilds a thread's turns from its stored rows (`GET /api/threads/:id/messages`). The cards come
 * from the final assistant message's `execution_tree`, so a reload shows the same cards as the live
 * turn; subtask text is stored only for a subtask the server interrupted or Stop or the budget cut
 * short, so other containers hold only their nested cards and their result, which is also all a live
 * subtask card keeps once it ended by itself.
 */
export function threadFromHistory(
  threadId: string,
  messages: StoredMessage[],
  title?: string,
  queued: QueuedMessage[] = [],
): ThreadView {
  const plans = storedPlans(messages);
  return {
    threadId,
    ...(title !== undefined && { title }),
    lastSeq: null,
    pending: [],
    // The branch shown: which of its messages have alternatives, and what an edit of each user message follows.
    siblings: siblingsFrom(messages),
    parents: parentsFrom(messages),
    queued: queuedFrom(queued),
    turns: groupTurns(messages)
      .map((rows) => turnFromRows(rows, plans))
      // Only the newest turn's draft can still wait: a later message means the user moved on.
      .map((turn, i, all) => (i === all.length - 1 ? turn : withoutPendingPlans(turn))),
  };
}

/** Each user message's parent, as stored (rows from a server without branches have none). */
function parentsFrom(messages: StoredMessage[]): Record<string, string | null> {
  const parents: Record<string, string | null> = {};
  for (const m of messages)
    if (m.role === "user" && m.parent_message_id !== undefined) parents[m.id] = m.parent_message_id;
  return parents;
}

/** Each user message starts a turn; the assistant and tool rows after it belong to that turn. */
function groupTurns(messages: StoredMessage[]): StoredMessage[][] {
  const groups: StoredMessage[][] = [];
  for (const m of messages) {
    const current = groups[groups.length - 1];
    if (m.role === "user" || !current) groups.push([m]);
    else current.push(m);
  }
  return groups;
}

/**
 * Plans stored whole in the thread's rows (a draft's create_plan result), by id: the turn that ran
 * an approved draft stores only a summary of its steps, and finds the stages here.
 */
function storedPlans(messages: StoredMessage[]): Map<string, Plan> {
  const plans = new Map<string, Plan>();
  for (const m of messages) {
    const plan = m.role === "tool" ? planFrom(contentText(m.content)) : undefined;
    if (plan) plans.set(plan.id, plan);
  }
  return plans;
}

export function turnFromRows(rows: StoredMessage[], plans = new Map<string, Plan>()): TurnView {
  const first = rows[0];
  const userRow = first?.role === "user" ? first : undefined;
  let turn: TurnView = emptyTurn(userRow ? `u:${userRow.id}` : `h:${first?.id ?? "empty"}`, "history");
  if (userRow)
    turn = {
      ...turn,
      user: { id: userRow.id, text: contentText(userRow.content) },
      userMessageId: userRow.id,
    };

  const assistants = rows.filter((r) => r.role === "assistant");
  const final = [...assistants].reverse().find((r) => r.execution_tree) ?? assistants[assistants.length - 1];
  const nodes = final?.execution_tree?.nodes;
  const toolRows = new Map(rows.filter((r) => r.tool_call_id).map((r) => [r.tool_call_id, r]));
  const placed = new Set<string>();

  const placeNode = (t: TurnView, node: ExecutionTreeNode): TurnView => {
    placed.add(node.id);
    // An interrupted or cut-short subtask's text is stored with it: it shows as it streamed, before its nested cards.
    return appendText(upsertCard(t, cardFromNode(node, nodes ?? [], plans)), node.id, node.text ?? "", false);
  };

  let previous: string | undefined;
  for (const [i, row] of assistants.entries()) {
    if (row === final && nodes) turn = placeRemainingRoots(turn, nodes, placed, placeNode);
    const text = contentText(row.content);
    if (row !== final && row.status === "interrupted") {
      // A model call a server restart cut, and the turn went on: its text stays apart, as it did live.
      const detail = i === 0 ? RESTART_DETAIL.rerun : RESTART_DETAIL.continues;
      turn = appendChild(turn, null, { kind: "cut", key: `root:cut:${row.id}`, text, detail });
      previous = undefined;
      continue;
    }
    // A turn's end row repeats its last text; one continued (continue_turn) has an end row per part.
    const endRow = row === final || row.execution_tree !== undefined;
    if (!(endRow && repeatsEarlierText(row, previous))) turn = appendText(turn, null, text, false);
    previous = text;
    for (const call of row.tool_calls ?? []) {
      const node = nodes?.find((n) => n.id === call.id && n.parent_id === null);
      if (node) turn = placeNode(turn, node);
      else if (!nodes)
        turn = upsertCard(turn, cardFromCall(call.id, call.name, call.args, toolRows.get(call.id), plans));
      // The stored call and its result row are whole; the tree's previews may be cut.
      turn = withStoredDetail(turn, call, toolRows.get(call.id), plans);
    }
  }
  if (nodes) {
    turn = placeRemainingRoots(turn, nodes, placed, placeNode);
    // Nested nodes go inside their parents; placing shallower nodes first keeps parents before children.
    const byDepth = [...nodes].sort((a, b) => depthOf(a, nodes) - depthOf(b, nodes));
    for (const node of byDepth) if (!placed.has(node.id)) turn = placeNode(turn, node);
    turn = withCutAttempts(turn, nodes);
  }
  // The answer's first row (a regenerate's sibling) and its end row (what the next message follows).
  const firstAnswer = assistants[0];
  return {
    ...withOutcome(turn, final),
    settled: isSettled(rows),
    ...(firstAnswer && { firstAnswerId: firstAnswer.id }),
    ...(final && { answerMessageId: final.id }),
  };
}

/**
 * Each subtask's attempts a server restart cut, where they were cut: after the nested calls that
 * had started by then (`after_calls`), as the live card showed them.
 */
function withCutAttempts(turn: TurnView, nodes: ExecutionTreeNode[]): TurnView {
  let t = turn;
  for (const node of nodes) {
    const attempts = node.attempts ?? [];
    if (attempts.length === 0) continue;
    const cuts = attempts.map((a, i) => {
      const detail = a.after_calls > 0 ? RESTART_DETAIL.subtaskContinues : RESTART_DETAIL.subtaskRerun;
      const cut: Child = { kind: "cut", key: `${node.id}:cut:${i}`, text: a.text, detail };
      return { at: a.after_calls, cut };
    });
    t = updateChildren(t, node.id, (children) => {
      const out: Child[] = [];
      let calls = 0;
      const flush = () => out.push(...cuts.filter((c) => c.at === calls).map((c) => c.cut));
      flush();
      for (const child of children) {
        out.push(child);
        if (child.kind !== "card") continue;
        calls += 1;
        flush();
      }
      out.push(...cuts.filter((c) => c.at > calls).map((c) => c.cut));
      return out;
    });
  }
  return t;
}

/**
 * The final row holds the turn's last assistant text, which is the previous row's when the last
 * model call wrote nothing (a budget or Stop before it began, or an empty answer): that text
 * streamed once, so it shows once.
 */
function repeatsEarlierText(final: StoredMessage, previous: string | undefined): boolean {
  return (
    previous !== undefined && (final.tool_calls?.length ?? 0) === 0 && contentText(final.content) === previous
  );
}

/**
 * The final answer was stored: the last row is an assistant message that asks for no tools and
 * is not waiting for the user. A turn still running when the rows were read fails this.
 */
function isSettled(rows: StoredMessage[]): boolean {
  const last = rows[rows.length - 1];
  return last?.role === "assistant" && (last.tool_calls?.length ?? 0) === 0 && last.status !== "waiting_user";
}

/** Root nodes no stored row names (e.g. rows not kept) still show, before the final text. */
function placeRemainingRoots(
  turn: TurnView,
  nodes: ExecutionTreeNode[],
  placed: Set<string>,
  placeNode: (t: TurnView, n: ExecutionTreeNode) => TurnView,
): TurnView {
  let t = turn;
  for (const node of nodes) if (node.parent_id === null && !placed.has(node.id)) t = placeNode(t, node);
  return t;
}

function cardFromNode(
  node: ExecutionTreeNode,
  nodes: ExecutionTreeNode[],
  plans: Map<string, Plan>,
): ToolCard {
  const known = new Set(nodes.map((n) => n.id));
  const parentId = node.parent_id !== null && known.has(node.parent_id) ? node.parent_id : null;
  const question = node.name === "ask_user" ? questionFrom(node.args_preview) : undefined;
  return {
    id: node.id,
    name: node.name,
    parentId,
    depth: depthOf(node, nodes),
    argsPreview: preview(node.args_preview ?? "", PREVIEW_CHARS),
    status:
      node.status === "interrupted"
        ? "interrupted"
        : endStatus(node.name, node.result_preview, node.is_error),
    durationMs: node.duration_ms,
    children: [],
    ...(node.result_preview !== undefined && { resultPreview: preview(node.result_preview, RESULT_CHARS) }),
    ...(node.title !== undefined && { title: node.title }),
    ...(question !== undefined && { question }),
    ...detailFrom(node.name, node.args_preview, node.result_preview, plans),
  };
}

function cardFromCall(
  id: string,
  name: string,
  args: unknown,
  result: StoredMessage | undefined,
  plans: Map<string, Plan>,
): ToolCard {
  const text = result && contentText(result.content);
  const question = name === "ask_user" ? questionFrom(args) : undefined;
  return {
    id,
    name,
    parentId: null,
    depth: 0,
    argsPreview: preview(args, PREVIEW_CHARS),
    status: endStatus(name, text, result?.is_error),
    children: [],
    ...(text !== undefined && { resultPreview: preview(text, RESULT_CHARS) }),
    ...(question !== undefined && { question }),
    ...detailFrom(name, args, text, plans),
  };
}

/** send_update's message and create_plan's plan, from a call's args and result. */
function detailFrom(
  name: string,
  args: unknown,
  result: unknown,
  plans: Map<string, Plan>,
): Partial<ToolCard> {
  if (name === "send_update") {
    const progress = progressFrom(args);
    return progress === undefined ? {} : { progress };
  }
  if (name !== "create_plan") return {};
  const id = planIdOf(result) ?? planIdOf(args);
  const plan = planFrom(result) ?? (id !== undefined ? plans.get(id) : undefined) ?? planFromSummary(result);
  if (!plan) return {};
  const { mode, status } = planResultFields(result);
  // A draft's stored result says it waits for review; a plan that ran has nothing to decide.
  const draft = status === "awaiting_user_review" || status === "pending_review";
  const view: PlanView = {
    plan,
    reviews: [],
    awaitingDecision: draft,
    ...(draft && { draft }),
    ...(mode !== undefined && { mode }),
  };
  return { plan: view };
}

function withStoredDetail(
  turn: TurnView,
  call: { id: string; name: string; args: unknown },
  result: StoredMessage | undefined,
  plans: Map<string, Plan>,
): TurnView {
  const detail = detailFrom(call.name, call.args, result && contentText(result.content), plans);
  return Object.keys(detail).length > 0 ? patchCard(turn, call.id, detail) : turn;
}

function withoutPendingPlans(turn: TurnView): TurnView {
  let t = turn;
  for (const card of Object.values(turn.cards)) {
    if (card.plan?.awaitingDecision)
      t = patchCard(t, card.id, { plan: { ...card.plan, awaitingDecision: false } });
  }
  return t;
}

/** Depth from the parent chain; a cycle or a missing parent stops the walk (bad data must not hang). */
function depthOf(node: ExecutionTreeNode, nodes: ExecutionTreeNode[]): number {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const seen = new Set<string>([node.id]);
  let depth = 0;
  let parent = node.parent_id === null ? undefined : byId.get(node.parent_id);
  while (parent && !seen.has(parent.id)) {
    seen.add(parent.id);
    depth += 1;
    parent = parent.parent_id === null ? undefined : byId.get(parent.parent_id);
  }
  return depth;
}

function withOutcome(turn: TurnView, final: StoredMessage | undefined): TurnView {
  const t: TurnView = { ...turn, running: false, state: "idle", ...(final?.usage && { usage: final.usage }) };
  switch (final?.status) {
    case "stopped":
      return { ...t, stopped: true };
    case "budget_exceeded":
      return { ...t, budget: { reason: "unknown" } };
    case "error":
    case "iteration_limit":
    case "interrupted":
      return { ...t, errors: [`turn ended: ${final.status}`] };
    case "waiting_user":
      return { ...t, errors: ["the agent was waiting for your answer"] };
    default:
      return t;
  }
}

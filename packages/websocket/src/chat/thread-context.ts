import {
  type AssembledContext,
  assembleContext,
  type ContextReport,
  type ContextSettings,
  renderScratchpad,
} from "@agentwire-chat/agents";
import type { StoredMessage } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import { threadHistory, threadHistoryEntries } from "./thread-history.js";

/** A turn's context, the scratchpad text the summarizer reads beside it, and the frame numbers when managed. */
export type ThreadContext = Omit<AssembledContext, "report"> & { scratchpad: string; report?: ContextReport };

/**
 * Reads what a turn's context is made of (the current branch's rows, the rolling summary of that
 * branch and the thread's scratchpad) and assembles it; the rows include the current user message,
 * last. Only the branch is read: the model sees nothing of the thread's other branches. With a
 * summary only the rows it does not cover are sent verbatim. Without context settings the whole
 * branch is sent as before, with the scratchpad still in the system prompt. `newThreadRow`: the turn
 * created the thread, and this user message is all it holds: nothing to read. `rerun`: the turn runs
 * again from its user message (the branch's last) after a crash cut its first step off; the rows
 * stored after that message (the cut call's text, kept as `interrupted`) are not part of what the
 * first attempt was sent.
 */
export async function loadThreadContext(
  repos: Repositories,
  userId: string,
  threadId: string,
  settings: ContextSettings | undefined,
  maxHistoryTokens: number,
  newThreadRow?: StoredMessage,
  rerun = false,
): Promise<ThreadContext> {
  // A thread this turn created has no summary, scratchpad or other row yet: three reads fewer before the answer.
  const [branch, items] = newThreadRow
    ? [{ ids: [newThreadRow.id], messages: [newThreadRow] }, []]
    : await Promise.all([currentBranch(repos, userId, threadId), repos.scratchpad.list(userId, threadId)]);
  const scratchpad = renderScratchpad(items);
  const all = asFirstSent(branch.messages, rerun);
  if (!settings) {
    const history = threadHistory(all);
    return { systemSections: scratchpad && `\n\n${scratchpad}`, history, scratchpad };
  }
  const summary = newThreadRow ? undefined : await repos.summaries.get(userId, threadId, branch.ids);
  const through = summary ? all.findIndex((row) => row.id === summary.throughMessageId) : -1;
  let rows = through >= 0 ? all.slice(through + 1) : undefined;
  // Pasted documents are pinned among the latest user messages: fewer of them uncovered, send it all.
  if (rows && rows.filter((r) => r.role === "user").length < settings.CONTEXT_PIN_USER_TURNS)
    rows = undefined;
  const afterSummary = rows !== undefined;
  const entries = threadHistoryEntries(rows ?? all);
  return {
    ...assembleContext({ entries, summary, afterSummary, scratchpad, settings, maxHistoryTokens }),
    scratchpad,
  };
}

/** The thread's current branch (its rows, and every id on it for the summary that covers it). */
export async function currentBranch(repos: Repositories, userId: string, threadId: string) {
  const branch = await repos.messages.branch(userId, threadId);
  // Only a missing leaf reads as undefined, and the current leaf is never missing.
  return branch ?? { leafId: null, ids: [], messages: [] };
}

/** The rows as a rerun turn's first attempt read them: none past the last user message. */
function asFirstSent<T extends { role: string }>(rows: T[], rerun: boolean): T[] {
  if (!rerun) return rows;
  const last = rows.findLastIndex((row) => row.role === "user");
  return last < 0 ? rows : rows.slice(0, last + 1);
}

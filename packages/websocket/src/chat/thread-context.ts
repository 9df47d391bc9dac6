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
 * Reads what a turn's context is made of (the thread's rows, rolling summary and scratchpad) and
 * assembles it; the rows include the current user message, last. With a summary only the rows it
 * does not cover are read, so a long thread costs what its tail costs. Without context settings the
 * whole history is sent as before, with the scratchpad still in the system prompt. `newThreadRow`:
 * the turn created the thread, and this user message is all it holds: nothing to read. `rerun`: the turn runs again from its
 * user message (the thread's last) after a crash cut its first step off; the rows stored after that
 * message (the cut call's text, kept as `interrupted`) are not part of what the first attempt was sent.
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
  const [summary, items] = newThreadRow
    ? [undefined, []]
    : await Promise.all([
        settings ? repos.summaries.get(userId, threadId) : undefined,
        repos.scratchpad.list(userId, threadId),
      ]);
  const scratchpad = renderScratchpad(items);
  const read = () => (newThreadRow ? Promise.resolve([newThreadRow]) : repos.messages.list(userId, threadId));
  if (!settings) {
    const history = threadHistory(asFirstSent(await read(), rerun));
    return { systemSections: scratchpad && `\n\n${scratchpad}`, history, scratchpad };
  }
  let rows = summary ? await repos.messages.listAfter(userId, threadId, summary.throughMessageId) : undefined;
  // Pasted documents are pinned among the latest user messages: fewer of them uncovered, read it all.
  if (rows && rows.filter((r) => r.role === "user").length < settings.CONTEXT_PIN_USER_TURNS)
    rows = undefined;
  const afterSummary = rows !== undefined;
  rows ??= await read();
  const entries = threadHistoryEntries(asFirstSent(rows, rerun));
  return {
    ...assembleContext({ entries, summary, afterSummary, scratchpad, settings, maxHistoryTokens }),
    scratchpad,
  };
}

/** The rows as a rerun turn's first attempt read them: none past the last user message. */
function asFirstSent<T extends { role: string }>(rows: T[], rerun: boolean): T[] {
  if (!rerun) return rows;
  const last = rows.findLastIndex((row) => row.role === "user");
  return last < 0 ? rows : rows.slice(0, last + 1);
}

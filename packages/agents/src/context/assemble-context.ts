import { estimateTextTokens } from "../loop/prune-history.js";
import type { ModelMessage } from "../providers/model-message.js";
import type { ContextReport } from "../turn/context-report.js";
import { type HistoryLimits, measureHistory, overBudget, scaleLimits } from "./context-budget.js";
import type { ContextSettings } from "./context-settings.js";
import { fittingStart, pinnedDocuments } from "./pick-verbatim.js";

export type { ContextReport };

/**
 * The share of the budget at which summarizing starts, beside the turn: early enough that the summary
 * has usually landed before the history outgrows the budget, when a turn would have to wait for it.
 */
export const SUMMARIZE_AT = 0.75;
/** The most a summary leaves verbatim, as a share of the budget: below SUMMARIZE_AT, so it is not due again at once. */
export const KEEP_AFTER_SUMMARY = 0.5;

/** A history message with the id of the stored row it came from. */
export type ContextEntry = { id: string; message: ModelMessage };

/** A thread's stored rolling summary. */
export type RollingSummary = { summary: string; throughMessageId: string; messageCount: number };

/** What the summarizer is to fold into the summary this turn. */
export type CompressionJob = {
  /** The summary so far ("" for none). */
  previous: string;
  /** Exactly the messages to compress, oldest first. */
  entries: ContextEntry[];
  /** Ids among `entries` that are pasted documents still sent verbatim. */
  pinnedIds: string[];
  /** The coverage the new summary will have. */
  throughMessageId: string;
  messageCount: number;
};

/**
 * The fixed part of a turn's `context_usage` numbers: the budget and what the summary and the
 * scratchpad take. A resumed turn computes them again from the stored summary and scratchpad.
 */
export function contextReport(
  summary: { summary: string; messageCount: number } | undefined,
  scratchpad: string,
  settings: Pick<ContextSettings, "CONTEXT_MAX_TOKENS">,
  maxHistoryTokens: number,
): ContextReport {
  return {
    budget: Math.min(settings.CONTEXT_MAX_TOKENS ?? maxHistoryTokens, maxHistoryTokens),
    summaryTokens: estimateTextTokens(summary?.summary ?? ""),
    scratchpadTokens: estimateTextTokens(scratchpad),
    messagesSummarized: summary?.messageCount ?? 0,
    messagesDropped: 0,
  };
}

/** One turn's context: what goes to the model, and what to summarize beside it. */
export type AssembledContext = {
  /** Appended to the system prompt: the summary and the scratchpad sections ("" when both empty). */
  systemSections: string;
  /** The history messages sent verbatim, in order (the current user message last). */
  history: ModelMessage[];
  report: ContextReport;
  /**
   * Set when older messages are to be summarized: beside the turn when the history nears its budget,
   * and before the turn's model call when `report.messagesDropped` > 0 (those messages are in it).
   */
  compress?: CompressionJob;
};

export type AssembleInput = {
  /** The history from the thread's start, or from right after the summary's coverage (`afterSummary`). */
  entries: readonly ContextEntry[];
  summary?: RollingSummary | undefined;
  /** True when only the messages the summary does not cover were read (long threads stay cheap). */
  afterSummary?: boolean;
  /** The rendered scratchpad ("" for none). */
  scratchpad: string;
  settings: ContextSettings;
  /** MAX_HISTORY_TOKENS: the hard cap, and the token budget when CONTEXT_MAX_TOKENS is unset. */
  maxHistoryTokens: number;
};

/**
 * Builds a turn's context: summary and scratchpad as system-prompt sections (so the history's tool
 * calls stay paired), then the newest history after the summary's coverage that fits the budget
 * (plus pinned documents). Messages that do not fit and are not in the summary are dropped and
 * counted; the job then covers them, for the caller to run before the model call. Past SUMMARIZE_AT
 * of the budget the job is set too (to run beside the turn), leaving the newest
 * CONTEXT_VERBATIM_MESSAGES, at most KEEP_AFTER_SUMMARY of the budget, out of the summary. Pure; a
 * thread within SUMMARIZE_AT costs one pass over its unsummarized history.
 */
export function assembleContext(input: AssembleInput): AssembledContext {
  const { entries, settings } = input;
  const messages = entries.map((e) => e.message);
  const at =
    input.summary && !input.afterSummary
      ? entries.findIndex((e) => e.id === input.summary?.throughMessageId)
      : -1;
  // A summary whose last message is gone (never expected) is ignored rather than trusted.
  const summary = at >= 0 || input.afterSummary ? input.summary : undefined;
  const covered = at + 1;
  const summaryText = summary?.summary ?? "";
  const sections = [
    summaryText && summarySection(summaryText, summary?.messageCount ?? 0),
    input.scratchpad,
  ].filter(Boolean);
  const systemSections = sections.length > 0 ? `\n\n${sections.join("\n\n")}` : "";
  const report = contextReport(summary, input.scratchpad, settings, input.maxHistoryTokens);
  const fixed = report.summaryTokens + report.scratchpadTokens;
  const limits: HistoryLimits = {
    maxMessages: settings.CONTEXT_MAX_MESSAGES,
    maxChars: settings.CONTEXT_MAX_CHARS,
    maxTokens: report.budget,
  };
  const pinned = pinnedDocuments(messages, settings.CONTEXT_PIN_CHARS, settings.CONTEXT_PIN_USER_TURNS);
  const measure = measureHistory(messages, pinned, covered);
  const start = overBudget(measure, fixed, limits)
    ? fittingStart(messages, pinned, covered, limits, fixed)
    : covered;
  const history: ModelMessage[] = [];
  // Pinned documents older than what is sent go first, in their order (providers merge adjacent user turns).
  for (const i of [...pinned].sort((a, b) => a - b)) if (i < start) history.push(messages[i] as ModelMessage);
  for (let i = start; i < messages.length; i++) history.push(messages[i] as ModelMessage);
  report.messagesDropped = start - covered - countBetween(pinned, covered, start);
  const assembled: AssembledContext = { systemSections, history, report };
  if (start === covered && !overBudget(measure, fixed, scaleLimits(limits, SUMMARIZE_AT))) return assembled;
  const keep = scaleLimits(limits, KEEP_AFTER_SUMMARY);
  keep.maxMessages = Math.min(keep.maxMessages, settings.CONTEXT_VERBATIM_MESSAGES);
  const end = Math.max(start, fittingStart(messages, pinned, covered, keep, fixed));
  if (end > covered) {
    const range = entries.slice(covered, end);
    assembled.compress = {
      previous: summaryText,
      entries: range,
      pinnedIds: range.filter((_, k) => pinned.has(covered + k)).map((e) => e.id),
      throughMessageId: (entries[end - 1] as ContextEntry).id,
      messageCount: (summary?.messageCount ?? 0) + range.length,
    };
  }
  return assembled;
}

function countBetween(indexes: ReadonlySet<number>, from: number, to: number): number {
  let n = 0;
  for (const i of indexes) if (i >= from && i < to) n += 1;
  return n;
}

function summarySection(summary: string, count: number): string {
  return (
    `Summary of the earlier conversation (its ${count} oldest messages; the messages that follow are verbatim):\n` +
    summary
  );
}

import { z } from "zod";

/** Documentation of one setting, in group `context` of the server's configuration reference. */
const doc = (description: string, computed = false) => ({
  group: "context",
  description,
  ...(computed && { computed }),
});
const count = (value: number, description: string) =>
  z.coerce.number().int().positive().default(value).meta(doc(description));
const name = (description: string) => z.string().min(1).optional().meta(doc(description));

/**
 * How a thread's context is built each turn, named exactly like the environment variables so the
 * server's config can reuse this schema (like BudgetLimits), its documentation included.
 */
export const ContextSettings = z.object({
  CONTEXT_VERBATIM_MESSAGES: count(
    12,
    "Newest history messages the rolling summary leaves out, to stay verbatim (at most half of each context limit).",
  ),
  CONTEXT_MAX_MESSAGES: count(
    40,
    "The most unsummarized history messages a call sends besides the summary; past this the thread is over budget and summarizing starts beside a turn at three quarters of it.",
  ),
  CONTEXT_MAX_CHARS: count(200_000, "The same limit in characters of unsummarized history."),
  CONTEXT_MAX_TOKENS: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .meta(
      doc(
        "The same limit in estimated tokens (summary and scratchpad included); also the `budget` of `context_usage`. Unset: MAX_HISTORY_TOKENS; a value above it raises MAX_HISTORY_TOKENS too.",
        true,
      ),
    ),
  CONTEXT_PIN_CHARS: count(
    8_000,
    "A user message at least this many characters long is a pasted document, sent whole while it is among the latest CONTEXT_PIN_USER_TURNS user messages.",
  ),
  CONTEXT_PIN_USER_TURNS: count(3, "How many of the latest user messages keep their pasted documents whole."),
  SUMMARIZER_PROVIDER: name(
    "Provider of the rolling-summary call. Unset: the turn's own; set alone: that provider's default model.",
  ),
  SUMMARIZER_MODEL: name(
    "Model of the rolling-summary call. Unset: the turn's own (or the summarizer provider's default).",
  ),
  SUMMARIZER_TIMEOUT_MS: count(
    60_000,
    "The summarizer call's own time limit in milliseconds (it may outlive its turn), and the longest a turn waits for a summary it needs.",
  ),
});
export type ContextSettings = z.infer<typeof ContextSettings>;

/** The defaults of every context setting. */
export const defaultContextSettings: Readonly<ContextSettings> = Object.freeze(ContextSettings.parse({}));

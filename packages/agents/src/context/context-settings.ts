import { z } from "zod";

const count = (value: number) => z.coerce.number().int().positive().default(value);
const name = z.string().min(1).optional();

/**
 * How a thread's context is built each turn, named exactly like the environment variables so the
 * server's config can reuse this schema (like BudgetLimits).
 */
export const ContextSettings = z.object({
  /** The newest history messages a summary leaves out, to stay verbatim (at most half the budget). */
  CONTEXT_VERBATIM_MESSAGES: count(12),
  /** The most unsummarized history messages a call sends; past this the thread is over budget. */
  CONTEXT_MAX_MESSAGES: count(40),
  /** Unsummarized history characters past this make the thread over budget. */
  CONTEXT_MAX_CHARS: count(200_000),
  /** Estimated tokens of summary + scratchpad + unsummarized history past this: over budget. Unset: MAX_HISTORY_TOKENS. */
  CONTEXT_MAX_TOKENS: z.coerce.number().int().positive().optional(),
  /** A user message at least this long is a pasted document... */
  CONTEXT_PIN_CHARS: count(8_000),
  /** ...kept verbatim while it is among the latest this-many user messages. */
  CONTEXT_PIN_USER_TURNS: count(3),
  /** The summarizer's provider and model; unset: the turn's own. */
  SUMMARIZER_PROVIDER: name,
  SUMMARIZER_MODEL: name,
  /** The summarizer call's own time limit: it may outlive its turn, so the turn's limits do not bound it. */
  SUMMARIZER_TIMEOUT_MS: count(60_000),
});
export type ContextSettings = z.infer<typeof ContextSettings>;

/** The defaults of every context setting. */
export const defaultContextSettings: Readonly<ContextSettings> = Object.freeze(ContextSettings.parse({}));

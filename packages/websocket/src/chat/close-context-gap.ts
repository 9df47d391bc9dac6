import type { CompressionJob } from "@agentwire-chat/agents";
import type { FastifyBaseLogger } from "fastify";
import type { ThreadContext } from "./thread-context.js";

/** What closing a turn's context gap needs from the turn and its thread. */
export type ContextGapInput = {
  /** Reads and assembles the thread's context again (after a summary landed). */
  reload: () => Promise<ThreadContext>;
  /** The thread's summarizer still running (beside an earlier turn), if any. */
  running: () => Promise<void> | undefined;
  /** Starts a summarizer on `job`, settling when it has ended; undefined when one already runs. */
  summarize: (job: CompressionJob, signal: AbortSignal) => Promise<void> | undefined;
  /** The turn's stop: the wait ends with it. */
  stop: AbortSignal;
  /** SUMMARIZER_TIMEOUT_MS: the longest wait, after which the turn goes on with what fits. */
  timeoutMs: number;
  logger: FastifyBaseLogger;
};

/** The context the turn starts with, and whether the wait ran a summarizer of its own. */
export type ClosedGap = { context: ThreadContext; summarized: boolean };

/**
 * Before a turn's first model call: when its context leaves messages out (neither within the budget
 * nor in the summary), waits for a summary that covers them. First for the thread's running
 * summarizer (started early for this), then, if messages are still left out, for one run of its own
 * on them. A summarizer that fails or is not done within `timeoutMs` leaves the turn with what fits,
 * and the context's report counts what is left out.
 */
export async function closeContextGap(context: ThreadContext, input: ContextGapInput): Promise<ClosedGap> {
  const dropped = context.report?.messagesDropped ?? 0;
  input.logger.info({ dropped }, "waiting for the summary of the older messages");
  const signal = AbortSignal.any([input.stop, AbortSignal.timeout(input.timeoutMs)]);
  let summarized = false;
  while ((context.report?.messagesDropped ?? 0) > 0 && !signal.aborted) {
    let work = input.running();
    if (!work && !summarized && context.compress) {
      work = input.summarize(context.compress, signal);
      summarized = work !== undefined;
    }
    if (!work) break;
    await settledOrAborted(work, signal);
    if (signal.aborted) break;
    context = await input.reload();
  }
  const left = context.report?.messagesDropped ?? 0;
  if (left > 0)
    input.logger.warn({ dropped: left }, "no summary covers the older messages; the turn sends what fits");
  else input.logger.info({ dropped }, "the turn waited for the summary of its older messages");
  return { context, summarized };
}

/** Resolves when `work` settles or `signal` fires, whichever is first. */
function settledOrAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    work.then(done, done);
  });
}

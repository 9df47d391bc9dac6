import type { CompressionJob, LoopContext, Provider, SideChannel } from "@agentwire-chat/agents";
import type { FrameLog } from "@agentwire-chat/storage";
import { appendOutsideTurn } from "../turns/append-outside-turn.js";
import type { TurnSegment } from "../turns/turn-segment.js";
import type { ChatServices } from "./chat-services.js";
import { summarizerModel, summarizeThread } from "./summarize-thread.js";

/** One summarizer run a turn asks for: its job, what it hands the turn through, and what ends it early. */
export type SummarizerRun = {
  job: CompressionJob;
  /** The rendered scratchpad, so its proposals can name existing ids. */
  scratchpad: string;
  side: SideChannel;
  /** The turn's stop and SUMMARIZER_TIMEOUT_MS (shutdown is added here). */
  signal: AbortSignal;
};

/**
 * Starts the thread's summarizer as the thread's side work: at most one per thread, and it may
 * outlive the turn (the turn ends when its answer is complete). Undefined, and nothing started,
 * while one already runs; else settles when it has ended (it never rejects).
 */
export function startSummarizer(
  chat: Pick<ChatServices, "providers" | "context" | "observer" | "modelSettings">,
  run: TurnSegment,
  turnModel: { provider: Provider; frames: FrameLog },
  ctx: LoopContext,
  input: SummarizerRun,
): Promise<void> | undefined {
  const settings = chat.context;
  if (!settings) return undefined;
  const { turn, repos, logger } = run;
  const { userId, threadId } = turn;
  const model = summarizerModel(
    chat.providers,
    settings,
    { provider: turnModel.provider, model: run.model },
    logger,
  );
  // The summarizer's own model's entry: the turn's scope settles how the turn answers, not how it summarizes.
  const modelSettings = chat.modelSettings?.lookup(model.provider.id, model.model);
  const outside = { repos, frames: turnModel.frames, turns: run.registry, coordination: run.coordination };
  return run.registry.startSideWork(threadId, (shutdown) =>
    summarizeThread({
      repos,
      userId,
      threadId,
      turnId: turn.turnId,
      job: input.job,
      scratchpad: input.scratchpad,
      ...model,
      ...(modelSettings && { settings: modelSettings }),
      ctx,
      side: input.side,
      deliverLate: (event) => appendOutsideTurn(outside, userId, threadId, event),
      ...(chat.observer && { observeLate: (record) => chat.observer?.llmCall(record) }),
      turnStored: async () => {
        await turn.driving;
      },
      signal: AbortSignal.any([input.signal, shutdown]),
      logger,
    }),
  );
}

import {
  type CompressionJob,
  joinSideWork,
  type LoopContext,
  type LoopEvent,
  type LoopResult,
  openSideChannel,
  type Provider,
  type SideBuffer,
  type SideChannel,
} from "@agentwire-chat/agents";
import type { ChatMessageData, StoredMessage } from "@agentwire-chat/protocol";
import { AgentwireError } from "@agentwire-chat/protocol";
import type { FrameLog } from "@agentwire-chat/storage";
import { type StartOptions, startTurn } from "../turns/start-turn.js";
import type { TurnConnection } from "../turns/turn-connection.js";
import type { TurnSegment } from "../turns/turn-segment.js";
import { editorContextSection } from "../workflows/editor-context.js";
import type { ChatServices } from "./chat-services.js";
import { closeContextGap } from "./close-context-gap.js";
import { pendingDraftsSection } from "./pending-drafts.js";
import { type ApprovedPlan, rootLoop } from "./plan-tools.js";
import { startSummarizer } from "./start-summarizer.js";
import { loadThreadContext } from "./thread-context.js";
import { turnToolbelt } from "./turn-toolbelt.js";

export type RunChatOptions = Pick<StartOptions, "answer" | "queued" | "watch"> & {
  /** A plan the user approved (plan_decision): the turn runs it first, then the model answers. */
  approvedPlan?: ApprovedPlan;
};

/** Where a chat turn comes from: a socket, or (a queued message's start) none, under its user. */
export type ChatOrigin = TurnConnection & { readonly connectionId: string };

/** Starts a unified-agent turn on a new or existing thread. */
export async function runChatAgent(
  data: ChatMessageData,
  conn: ChatOrigin,
  chat: ChatServices,
  requestId?: string,
  options: RunChatOptions = {},
): Promise<void> {
  // A scope's model replaces the server's default; the message's own choice still wins.
  const defaults = chat.scopes.defaultsFor(chat.defaults, data.chat_context?.kind ?? "thread");
  const resolved = chat.providers.resolve({ provider: data.provider, model: data.model }, defaults);
  if (!resolved.ok) throw new AgentwireError("bad_request", resolved.message);
  const who = { provider: resolved.provider.id, model: resolved.model };
  const plan = options.approvedPlan;
  await startTurn(conn, chat, data, {
    who,
    requestId,
    // A chat turn cut off before its first step runs again from its message: its start is stored.
    rerun: plan ? { planId: plan.plan.id } : {},
    admission: "queue",
    ...(options.answer && { answer: options.answer }),
    ...(options.queued && { queued: options.queued }),
    ...(options.watch !== undefined && { watch: options.watch }),
    // The expensive work (tools, context, the provider request) only once the turn is admitted.
    start: (run) =>
      chatLoopStart(chat, run, {
        provider: resolved.provider,
        connectionId: conn.connectionId,
        frames: conn.frames,
        ...(data.thread_id === undefined && { newThreadRow: run.userRow }),
        ...(plan && { approvedPlan: plan }),
      }),
  });
}

export type ChatLoopStartOptions = {
  provider: Provider;
  /** The socket that started the turn (client UI tools go there). */
  connectionId: string;
  frames: FrameLog;
  /** The turn created its thread, and this user message is all the thread holds: nothing to read. */
  newThreadRow?: StoredMessage;
  approvedPlan?: ApprovedPlan;
  /** The turn runs again after a crash cut it off before its first step: its own rows past its user message are not history. */
  rerun?: boolean;
};

/**
 * How a chat turn's loop starts from its user message, for a new turn and for one run again after
 * a crash: its tools, its context (history, summary, scratchpad, drafts, the editor's workflow), the
 * root loop, and the thread's summarizer beside it. Run inside the driver, so a failure to build
 * the tools ends the turn like any other error.
 */
export function chatLoopStart(
  chat: ChatServices,
  run: TurnSegment,
  options: ChatLoopStartOptions,
): (ctx: LoopContext) => Promise<AsyncGenerator<LoopEvent, LoopResult>> {
  const { turn, logger, chatContext, memoryEnabled, repos } = run;
  const { userId } = turn;
  const scope = {
    userId,
    threadId: turn.threadId,
    chatContext,
    connectionId: options.connectionId,
    provider: run.provider,
    model: run.model,
  };
  return async (ctx: LoopContext) => {
    const belt = await turnToolbelt(chat, scope, memoryEnabled, logger, repos);
    if (belt.guidance !== undefined) ctx.guidance = belt.guidance;
    const maxHistory = ctx.budget.limits.MAX_HISTORY_TOKENS;
    const { newThreadRow } = options;
    const workflowId = chatContext.workflow_id;
    const canBuild = belt.tools.some((t) => t.name === "build_workflow");
    const load = () =>
      loadThreadContext(repos, userId, turn.threadId, chat.context, maxHistory, newThreadRow, options.rerun);
    let [context, drafts, editor] = await Promise.all([
      load(),
      newThreadRow ? "" : pendingDraftsSection(repos, userId, turn.threadId),
      workflowId === undefined ? "" : editorContextSection(repos, userId, workflowId, canBuild),
    ]);
    const settings = chat.context;
    const summarize = (job: CompressionJob, side: SideChannel, signal: AbortSignal) =>
      startSummarizer(chat, run, options, ctx, { job, scratchpad: context.scratchpad, side, signal });
    let before: SideBuffer | undefined;
    let summarized = false;
    // Only a thread whose summary lags behind what its budget can send waits here (common turns skip it).
    if (settings && (context.report?.messagesDropped ?? 0) > 0) {
      const channel = openSideChannel();
      before = channel;
      ({ context, summarized } = await closeContextGap(context, {
        reload: load,
        running: () => run.registry.sideWorkOf(turn.threadId),
        summarize: (job, signal) => summarize(job, channel.channel, signal),
        stop: turn.abort.signal,
        timeoutMs: settings.SUMMARIZER_TIMEOUT_MS,
        logger,
      }));
    }
    logger.info({ provider: run.provider, model: run.model, tools: belt.tools.length }, "turn started");
    const loop = rootLoop(options.approvedPlan)({
      provider: options.provider,
      model: run.model,
      systemPrompt: belt.systemPrompt + editor + context.systemSections + drafts,
      history: context.history,
      tools: belt.tools,
      ctx,
      ...(belt.settings && { settings: belt.settings }),
      signal: turn.abort.signal,
      ...(context.report && { context: context.report }),
    });
    // A turn that ran a summarizer of its own starts no second one (it failed, or is still running).
    const job = summarized ? undefined : context.compress;
    if (!settings || (!job && !before)) return loop;
    // Beside the answer, not before it: this summary serves the next turns.
    const stopOrTimeout = () =>
      AbortSignal.any([turn.abort.signal, AbortSignal.timeout(settings.SUMMARIZER_TIMEOUT_MS)]);
    const beside = job && ((side: SideChannel) => summarize(job, side, stopOrTimeout()) ?? Promise.resolve());
    return joinSideWork(loop, beside, before);
  };
}

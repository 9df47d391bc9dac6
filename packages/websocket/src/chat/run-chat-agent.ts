import {
  joinSideWork,
  type LoopContext,
  type LoopEvent,
  type LoopResult,
  type Provider,
} from "@agentwire/agents";
import type { ChatMessageData, StoredMessage } from "@agentwire/protocol";
import { AgentwireError } from "@agentwire/protocol";
import type { FrameLog } from "@agentwire/storage";
import { driveWhenAdmitted, reserveTurn } from "../turns/admit-turn.js";
import { appendOutsideTurn } from "../turns/append-outside-turn.js";
import { beginTurn, type StartedTurn } from "../turns/begin-turn.js";
import { driveTurn } from "../turns/drive-turn.js";
import type { TurnRun } from "../turns/turn-run.js";
import { editorContextSection } from "../workflows/editor-context.js";
import type { ConnectionContext } from "../ws/connection-context.js";
import type { ChatServices } from "./chat-services.js";
import { pendingDraftsSection } from "./pending-drafts.js";
import { type ApprovedPlan, rootLoop } from "./plan-tools.js";
import { summarizerModel, summarizeThread } from "./summarize-thread.js";
import { loadThreadContext } from "./thread-context.js";
import { turnToolbelt } from "./turn-toolbelt.js";

export type RunChatOptions = {
  /** A plan the user approved (plan_decision): the turn runs it first, then the model answers. */
  approvedPlan?: ApprovedPlan;
};

/** Starts a unified-agent turn on a new or existing thread. */
export async function runChatAgent(
  data: ChatMessageData,
  conn: ConnectionContext,
  chat: ChatServices,
  requestId?: string,
  options: RunChatOptions = {},
): Promise<void> {
  // A scope's model replaces the server's default; the message's own choice still wins.
  const defaults = chat.scopes.defaultsFor(chat.defaults, data.chat_context?.kind ?? "thread");
  const resolved = chat.providers.resolve({ provider: data.provider, model: data.model }, defaults);
  if (!resolved.ok) throw new AgentwireError("bad_request", resolved.message);
  const who = { provider: resolved.provider.id, model: resolved.model };
  // Synchronously, before anything is stored: a full admission queue refuses the turn (`overloaded`).
  const ticket = reserveTurn(chat.admission, conn.userId);
  let run: StartedTurn;
  try {
    // A chat turn cut off before its first step runs again from its message: its start is stored.
    const plan = options.approvedPlan;
    run = await beginTurn(conn, chat, data, who, requestId, plan ? { planId: plan.plan.id } : {});
  } catch (error) {
    ticket?.release();
    throw error;
  }
  const plan = options.approvedPlan;
  const start = chatLoopStart(chat, run, {
    provider: resolved.provider,
    connectionId: conn.connectionId,
    frames: conn.frames,
    ...(data.thread_id === undefined && { newThreadRow: run.userRow }),
    ...(plan && { approvedPlan: plan }),
  });
  // The expensive work above (tools, context, the provider request) only once the turn is admitted.
  driveWhenAdmitted(run, ticket, () => driveTurn(run, start));
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
  run: TurnRun,
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
    const [context, drafts, editor] = await Promise.all([
      loadThreadContext(repos, userId, turn.threadId, chat.context, maxHistory, newThreadRow, options.rerun),
      newThreadRow ? "" : pendingDraftsSection(repos, userId, turn.threadId),
      workflowId === undefined ? "" : editorContextSection(repos, userId, workflowId, canBuild),
    ]);
    logger.info({ provider: run.provider, model: run.model, tools: belt.tools.length }, "turn started");
    const loop = rootLoop(options.approvedPlan)({
      provider: options.provider,
      model: run.model,
      systemPrompt: belt.systemPrompt + editor + context.systemSections + drafts,
      history: context.history,
      tools: belt.tools,
      ctx,
      signal: turn.abort.signal,
      ...(context.report && { context: context.report }),
    });
    const job = context.compress;
    if (!job || !chat.context) return loop;
    // Beside the answer, not before it: the summary serves the next turns.
    const summarizer = summarizerModel(
      chat.providers,
      chat.context,
      { provider: options.provider, model: run.model },
      logger,
    );
    const timeoutMs = chat.context.SUMMARIZER_TIMEOUT_MS;
    const outside = { repos, frames: options.frames, turns: run.registry, coordination: run.coordination };
    // It may outlive the turn (the turn ends when its answer is complete): one per thread at a time.
    return joinSideWork(
      loop,
      (side) =>
        run.registry.startSideWork(turn.threadId, (shutdown) =>
          summarizeThread({
            repos,
            userId,
            threadId: turn.threadId,
            turnId: turn.turnId,
            job,
            scratchpad: context.scratchpad,
            ...summarizer,
            ctx,
            side,
            deliverLate: (event) => appendOutsideTurn(outside, userId, turn.threadId, event),
            turnStored: async () => {
              await turn.driving;
            },
            signal: AbortSignal.any([turn.abort.signal, shutdown, AbortSignal.timeout(timeoutMs)]),
            logger,
          }),
        ) ?? Promise.resolve(),
    );
  };
}

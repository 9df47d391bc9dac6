import {
  isPrintable,
  NotFoundError,
  type ThreadSummary,
  type ThreadTurnState,
  threadLiveStateOnWire,
} from "@agentwire-chat/protocol";
import { type Repositories, toThreadSummary } from "@agentwire-chat/storage";
import type { FastifyInstance } from "fastify";

interface ThreadParams {
  id: string;
}

/** What the thread routes read: the stored threads, and the latest progress lines of running turns. */
export type ThreadsRoutesOptions = {
  repos: Repositories;
  /** A running thread's latest `send_update` line this process heard of (absent: none shown). */
  progressOf?: ((userId: string, threadId: string) => string | undefined) | undefined;
};

/** The caller's threads over HTTP; another user's thread is 404 exactly like a missing one. */
export async function threadsRoutes(app: FastifyInstance, opts: ThreadsRoutesOptions) {
  const { repos } = opts;

  // `?request_id=`: the thread a chat_message with that request_id started a turn on (none when it
  // never started one), for a client whose socket closed before the `thread` frame arrived.
  app.get<{ Querystring: { request_id?: string } }>("/api/threads", async (request) => {
    const requestId = request.query.request_id;
    if (requestId === undefined) return { threads: await listWithState(opts, request.userId) };
    // Only printable ids are stored with a turn (Postgres text holds no NUL): others started none.
    if (!isPrintable(requestId)) return { threads: [] };
    const turn = await repos.turns.findByRequestId(request.userId, requestId.slice(0, 200));
    const thread = turn && (await repos.threads.get(request.userId, turn.threadId));
    return { threads: thread ? [toThreadSummary(thread)] : [] };
  });

  app.delete<{ Params: ThreadParams }>("/api/threads/:id", async (request, reply) => {
    if (!(await repos.threads.delete(request.userId, request.params.id))) throw new NotFoundError("thread");
    return reply.code(204).send();
  });
}

/**
 * The user's threads, each with its live state from the stored turns (the source of truth on every
 * instance): a client coming back sees which threads have work running or a question waiting.
 */
async function listWithState(
  { repos, progressOf }: ThreadsRoutesOptions,
  userId: string,
): Promise<ThreadSummary[]> {
  const [threads, active] = await Promise.all([repos.threads.list(userId), repos.turns.activeTurns(userId)]);
  const byThread = new Map(active.map((turn) => [turn.threadId, turn]));
  // Messages wait only behind a turn (or for a moment after it): only busy threads are counted.
  const queued = new Map(
    await Promise.all(
      active.map(
        async (turn) => [turn.threadId, await repos.queuedMessages.count(userId, turn.threadId)] as const,
      ),
    ),
  );
  return threads.map((thread) => {
    const turn = byThread.get(thread.id);
    const waiting = queued.get(thread.id) ?? 0;
    const state: ThreadTurnState = !turn ? "idle" : turn.status === "running" ? "running" : "waiting_user";
    const suspension = turn?.suspendedState?.state.suspension;
    const progress = state === "running" ? progressOf?.(userId, thread.id) : undefined;
    return {
      ...thread,
      state: threadLiveStateOnWire(state),
      ...(suspension?.kind === "question" && { question: suspension.question }),
      ...(progress !== undefined && { progress }),
      ...(waiting > 0 && { queued: waiting }),
    };
  });
}

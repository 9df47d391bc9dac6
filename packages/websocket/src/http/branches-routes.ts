import { AgentwireError, isPrintable, NotFoundError, type QueuedMessage } from "@agentwire-chat/protocol";
import type { QueuedMessageRow, Repositories } from "@agentwire-chat/storage";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { followBranchTitle } from "../turns/thread-title.js";
import { bodyIssues } from "./body-issues.js";

interface ThreadParams {
  id: string;
}

const CurrentLeafBody = z.strictObject({ message_id: z.string().min(1).max(200).refine(isPrintable) });

/**
 * A thread's branches and queue over HTTP: the messages of a branch, which branch is current, and the
 * messages waiting for the next turn. Another user's thread is 404 exactly like a missing one.
 */
export async function branchesRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  // The current branch by default, so a client that knows nothing of branches sees one line.
  app.get<{ Params: ThreadParams; Querystring: { leaf?: string } }>(
    "/api/threads/:id/messages",
    async (request) => {
      const { leaf } = request.query;
      const query = leaf === undefined ? {} : { leafId: leaf };
      const branch = await repos.messages.branch(request.userId, request.params.id, query);
      if (!branch) throw new NotFoundError("message");
      return { messages: branch.messages };
    },
  );

  app.put<{ Params: ThreadParams }>("/api/threads/:id/current_leaf", async (request) => {
    const { userId } = request;
    const threadId = request.params.id;
    const body = CurrentLeafBody.safeParse(request.body ?? {});
    if (!body.success) throw new AgentwireError("bad_request", bodyIssues(body.error));
    if (!(await repos.threads.get(userId, threadId))) throw new NotFoundError("thread");
    // The stored turn is the truth on every instance: a running or waiting turn owns the branch it grows.
    const status = (await repos.turns.latest(userId, threadId))?.status;
    if (status === "running" || status === "waiting_user")
      throw new AgentwireError("busy", "a turn is running on this thread: its branch cannot change now");
    const leaf = await repos.messages.newestLeaf(userId, threadId, body.data.message_id);
    if (leaf === undefined) throw new NotFoundError("message");
    const before = await repos.messages.branch(userId, threadId);
    await repos.messages.setCurrentLeaf(userId, threadId, leaf);
    const after = await repos.messages.branch(userId, threadId);
    const first = after?.messages[0];
    if (first?.content != null)
      await followBranchTitle(repos, userId, threadId, before?.messages[0]?.content, first.content);
    return { current_leaf_id: leaf };
  });

  app.get<{ Params: ThreadParams }>("/api/threads/:id/queue", async (request) => {
    const { userId } = request;
    const threadId = request.params.id;
    if (!(await repos.threads.get(userId, threadId))) throw new NotFoundError("thread");
    const rows = await repos.queuedMessages.list(userId, threadId);
    return { queued: rows.map(toQueuedMessage) };
  });
}

/** A queued row as the protocol's QueuedMessage, at its place in the queue. */
export function toQueuedMessage(row: QueuedMessageRow, index: number): QueuedMessage {
  return {
    message_id: row.id,
    thread_id: row.threadId,
    content: row.data.content,
    mode: row.mode,
    position: index + 1,
    ...(row.data.parent_message_id !== undefined && { parent_message_id: row.data.parent_message_id }),
    created_at: new Date(row.createdAt).toISOString(),
  };
}

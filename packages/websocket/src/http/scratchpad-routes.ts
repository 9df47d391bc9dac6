import { AgentwireError, NotFoundError, ScratchpadEdit } from "@agentwire-chat/protocol";
import type { FastifyInstance } from "fastify";
import { appendOutsideTurn, type OutsideTurnDeps } from "../turns/append-outside-turn.js";
import { bodyIssues } from "./body-issues.js";

/**
 * A thread's agent scratchpad over HTTP: read it, edit an item, clear it. Every change goes to the
 * sockets following the thread as a `scratchpad_patch` (while a turn runs too). Another user's thread
 * is 404 exactly like a missing one.
 */
export async function scratchpadRoutes(app: FastifyInstance, opts: OutsideTurnDeps) {
  const { repos } = opts;

  // Owner check here, not in the repo: a turn reading its own thread's scratchpad needs none.
  async function ownThread(userId: string, threadId: string): Promise<void> {
    if (!(await repos.threads.get(userId, threadId))) throw new NotFoundError("thread");
  }

  app.get<{ Params: { id: string } }>("/api/threads/:id/scratchpad", async (request) => {
    await ownThread(request.userId, request.params.id);
    return { items: await repos.scratchpad.list(request.userId, request.params.id) };
  });

  app.patch<{ Params: { id: string; item_id: string } }>(
    "/api/threads/:id/scratchpad/:item_id",
    async (request) => {
      const { userId } = request;
      const { id: threadId, item_id: itemId } = request.params;
      await ownThread(userId, threadId);
      const edit = ScratchpadEdit.safeParse(request.body ?? {});
      if (!edit.success) throw new AgentwireError("bad_request", bodyIssues(edit.error));
      const item = await repos.scratchpad.edit(userId, threadId, itemId, edit.data);
      if (!item) throw new NotFoundError("scratchpad item");
      await appendOutsideTurn(opts, userId, threadId, { type: "scratchpad_patch", items: [item] });
      return { item };
    },
  );

  app.delete<{ Params: { id: string } }>("/api/threads/:id/scratchpad", async (request, reply) => {
    const { userId } = request;
    const threadId = request.params.id;
    await ownThread(userId, threadId);
    await repos.scratchpad.clear(userId, threadId);
    await appendOutsideTurn(opts, userId, threadId, { type: "scratchpad_patch", items: [], cleared: true });
    return reply.code(204).send();
  });
}

import type { FastifyInstance } from "fastify";
import type { Repositories } from "../db/repositories.js";
import { NotFoundError } from "../errors/agentwire-error.js";

/** A thread's agent scratchpad over HTTP; another user's thread is 404 exactly like a missing one. */
export async function scratchpadRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  app.get<{ Params: { id: string } }>("/api/threads/:id/scratchpad", async (request) => {
    // Owner check here, not in the repo: a turn reading its own thread's scratchpad needs none.
    if (!(await repos.threads.get(request.userId, request.params.id))) throw new NotFoundError("thread");
    return { items: await repos.scratchpad.list(request.userId, request.params.id) };
  });
}

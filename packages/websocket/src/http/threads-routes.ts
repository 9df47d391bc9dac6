import type { FastifyInstance } from "fastify";
import type { Repositories } from "../db/repositories.js";
import { NotFoundError } from "../errors/agentwire-error.js";

interface ThreadParams {
  id: string;
}

/** The caller's threads over HTTP; another user's thread is 404 exactly like a missing one. */
export async function threadsRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  app.get("/api/threads", async (request) => ({ threads: await repos.threads.list(request.userId) }));

  app.get<{ Params: ThreadParams }>("/api/threads/:id/messages", async (request) => ({
    messages: await repos.messages.list(request.userId, request.params.id),
  }));

  app.delete<{ Params: ThreadParams }>("/api/threads/:id", async (request, reply) => {
    if (!(await repos.threads.delete(request.userId, request.params.id))) throw new NotFoundError("thread");
    return reply.code(204).send();
  });
}

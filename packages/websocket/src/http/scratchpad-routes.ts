import type { FastifyInstance } from "fastify";
import type { Repositories } from "../db/repositories.js";

/** A thread's agent scratchpad over HTTP; another user's thread is 404 exactly like a missing one. */
export async function scratchpadRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  app.get<{ Params: { id: string } }>("/api/threads/:id/scratchpad", async (request) => ({
    items: await repos.scratchpad.list(request.userId, request.params.id),
  }));
}

import type { MemoryEntry } from "@agentwire-chat/protocol";
import { NotFoundError } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import type { FastifyInstance } from "fastify";

/** The caller's long-term memory (what memory_write stored) over HTTP: read it, forget a key or all. */
export async function memoryRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;

  app.get("/api/memory", async (request) => ({
    entries: (await repos.memories.list(request.userId)).map(
      (row): MemoryEntry => ({
        key: row.key,
        value: row.value,
        updated_at: new Date(row.updatedAt).toISOString(),
      }),
    ),
  }));

  app.delete<{ Params: { key: string } }>("/api/memory/:key", async (request, reply) => {
    if (!(await repos.memories.delete(request.userId, request.params.key)))
      throw new NotFoundError("memory key");
    return reply.code(204).send();
  });

  app.delete("/api/memory", async (request, reply) => {
    await repos.memories.clear(request.userId);
    return reply.code(204).send();
  });
}

import { readFile } from "node:fs/promises";
import { NotFoundError } from "@agentwire-chat/protocol";
import type { Repositories } from "@agentwire-chat/storage";
import type { FastifyInstance } from "fastify";

interface AssetParams {
  id: string;
}

/**
 * `GET /api/assets/:id`: a generated file, to its owner only (another user's asset is 404 like a
 * missing one), with its stored content type, `nosniff` and `inline` disposition.
 */
export async function assetsRoutes(app: FastifyInstance, opts: { repos: Repositories }) {
  const { repos } = opts;
  app.get<{ Params: AssetParams }>("/api/assets/:id", async (request, reply) => {
    const row = await repos.assets.get(request.userId, request.params.id);
    if (!row) throw new NotFoundError("asset");
    let bytes: Buffer;
    try {
      bytes = await readFile(row.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError("asset");
      throw error;
    }
    return reply
      .code(200)
      .header("content-type", row.mimeType)
      .header("x-content-type-options", "nosniff")
      .header("content-disposition", "inline")
      .header("cache-control", "private, max-age=3600")
      .send(bytes);
  });
}

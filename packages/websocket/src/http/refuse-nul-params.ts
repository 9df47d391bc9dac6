import { AgentwireError } from "@agentwire-chat/protocol";
import type { FastifyRequest } from "fastify";

/**
 * A path parameter with a NUL character names nothing stored (Postgres text cannot hold one, and
 * would fail the query with a 500): every /api route answers it 404 here, before any query.
 */
export async function refuseNulParams(request: FastifyRequest): Promise<void> {
  const params = request.params as Record<string, unknown> | undefined;
  for (const value of Object.values(params ?? {})) {
    if (typeof value === "string" && value.includes("\u0000"))
      throw new AgentwireError("not_found", "not found");
  }
}

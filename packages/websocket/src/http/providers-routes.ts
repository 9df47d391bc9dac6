import type { ProviderRegistry } from "@agentwire/agents";
import type { FastifyInstance } from "fastify";

/** `GET /api/providers`: the configured providers and their known models, for the client's model picker. */
export async function providersRoutes(app: FastifyInstance, opts: { providers: ProviderRegistry }) {
  app.get("/api/providers", async () => ({ providers: await opts.providers.list() }));
}

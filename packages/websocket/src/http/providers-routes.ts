import type { ModelDefaults, ProviderListEntry, ProviderRegistry } from "@agentwire-chat/agents";
import type { FastifyInstance } from "fastify";

/** What `GET /api/providers` answers: the providers, and the one a message naming none runs on. */
export type ProvidersAnswer = { providers: ProviderListEntry[]; default_provider?: string };

/**
 * `GET /api/providers`: the configured providers with their known models and default model, and the
 * server's default provider, so a client's model picker starts where the server would.
 */
export async function providersRoutes(
  app: FastifyInstance,
  opts: { providers: ProviderRegistry; defaults?: ModelDefaults | undefined },
) {
  app.get("/api/providers", async (): Promise<ProvidersAnswer> => {
    const providers = await opts.providers.list();
    const id = opts.defaults?.provider;
    const isDefault = (p: ProviderListEntry) => p.id === id;
    if (id === undefined || !providers.some(isDefault)) return { providers };
    // DEFAULT_MODEL belongs to the default provider (as resolve() uses it) and wins over its own.
    const model = opts.defaults?.model;
    return {
      providers: model
        ? providers.map((p) => (isDefault(p) ? { ...p, default_model: model } : p))
        : providers,
      default_provider: id,
    };
  });
}

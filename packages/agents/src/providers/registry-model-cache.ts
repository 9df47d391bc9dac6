import type { Provider } from "./provider.js";

type Entry = { models: string[]; expiresAt: number };

/**
 * Caches each provider's model list for `ttlMs` and bounds every fetch by `timeoutMs`; a server that
 * is down or slow lists no models (and is asked again next time) instead of stalling the listing.
 */
export class RegistryModelCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string[]>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The provider's models, from cache when fresh. */
  async models(provider: Provider): Promise<string[]> {
    const cached = this.entries.get(provider.id);
    if (cached && cached.expiresAt > this.now()) return cached.models;
    const running = this.inFlight.get(provider.id);
    if (running) return running;
    const fetching = this.fetch(provider).finally(() => this.inFlight.delete(provider.id));
    this.inFlight.set(provider.id, fetching);
    return fetching;
  }

  private async fetch(provider: Provider): Promise<string[]> {
    if (!provider.listModels) return [];
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Raced as well as signalled, in case a provider ignores the signal.
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error("model list timed out"));
      }, this.timeoutMs);
    });
    try {
      const models = await Promise.race([provider.listModels(controller.signal), timeout]);
      this.entries.set(provider.id, { models, expiresAt: this.now() + this.ttlMs });
      return models;
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}

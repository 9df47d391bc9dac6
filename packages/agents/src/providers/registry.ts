import { AnthropicProvider } from "./anthropic/anthropic-provider.js";
import type { FetchLike } from "./bounded-retry-fetch.js";
import { OpenAIProvider } from "./openai/openai-provider.js";
import { OpenAIResponsesProvider } from "./openai-responses/openai-responses-provider.js";
import type { Provider } from "./provider.js";
import { ProviderRegistryConfig, type ResolvedRegistryConfig } from "./registry-config.js";
import { KNOWN_MODELS } from "./registry-known-models.js";
import { RegistryModelCache } from "./registry-model-cache.js";

/** One provider as `GET /api/providers` lists it. */
export type ProviderListEntry = { id: string; models: string[]; default_model?: string };

/** What a chat message asked for; both optional. */
export type ModelChoice = { provider?: string | undefined; model?: string | undefined };

/** Server-wide fallbacks: the provider to use, and its model. */
export type ModelDefaults = { provider?: string | undefined; model?: string | undefined };

/** A usable provider and model, or why not (the server answers `bad_request` with the message). */
export type ResolveResult = { ok: true; provider: Provider; model: string } | { ok: false; message: string };

/** The configured providers, by id. */
export interface ProviderRegistry {
  get(id: string): Provider | undefined;
  list(): Promise<ProviderListEntry[]>;
  resolve(choice: ModelChoice, defaults: ModelDefaults): ResolveResult;
}

/** Options of `createProviderRegistry` beyond the config. */
export type ProviderRegistryOptions = {
  /** Providers added as they are (e.g. a ScriptedProvider for tests and benchmarks). */
  extraProviders?: readonly Provider[];
  /** Default model of an extra provider, by id. */
  extraDefaultModels?: Readonly<Record<string, string>>;
  /** Replaces global fetch in every SDK client (tests, proxies). */
  fetch?: FetchLike;
};

type Registered = { provider: Provider; defaultModel?: string | undefined; staticModels?: readonly string[] };

const KEY_HINTS: Record<string, string> = {
  openai: "set OPENAI_API_KEY",
  anthropic: "set ANTHROPIC_API_KEY",
  scripted: "only tests and benchmarks add it",
};

/** Builds the registry: openai and anthropic when their keys are set, each compatible endpoint, and the extras. */
export function createProviderRegistry(
  input: ProviderRegistryConfig,
  options: ProviderRegistryOptions = {},
): ProviderRegistry {
  const config = ProviderRegistryConfig.parse(input);
  const registered = new Map<string, Registered>();
  for (const entry of buildProviders(config, options.fetch)) registered.set(entry.provider.id, entry);
  for (const provider of options.extraProviders ?? []) {
    if (registered.has(provider.id)) throw new Error(`provider id "${provider.id}" is configured twice`);
    registered.set(provider.id, { provider, defaultModel: options.extraDefaultModels?.[provider.id] });
  }
  const cache = new RegistryModelCache(config.modelListTimeoutMs, config.modelListTtlMs);

  return {
    get: (id) => registered.get(id)?.provider,

    async list() {
      return Promise.all(
        [...registered.values()].map(async ({ provider, defaultModel, staticModels }) => {
          const models = staticModels ? [...staticModels] : await cache.models(provider);
          const entry: ProviderListEntry = { id: provider.id, models };
          if (defaultModel) entry.default_model = defaultModel;
          return entry;
        }),
      );
    },

    resolve(choice, defaults) {
      const id = choice.provider || defaults.provider;
      if (!id) return { ok: false, message: "no provider given and no default provider is configured" };
      const entry = registered.get(id);
      if (!entry) {
        const configured = [...registered.keys()].join(", ") || "none";
        const hint = Object.hasOwn(KEY_HINTS, id) ? KEY_HINTS[id] : undefined;
        const why = hint ? `provider "${id}" is not configured (${hint})` : `unknown provider "${id}"`;
        return { ok: false, message: `${why}; configured providers: ${configured}` };
      }
      // The server-wide default model belongs to the default provider; another provider uses its own.
      const fallback = id === defaults.provider ? (defaults.model ?? entry.defaultModel) : entry.defaultModel;
      const model = choice.model || fallback;
      if (!model) return { ok: false, message: `no model given and provider "${id}" has no default model` };
      return { ok: true, provider: entry.provider, model };
    },
  };
}

function buildProviders(config: ResolvedRegistryConfig, fetch: FetchLike | undefined): Registered[] {
  const shared = {
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
    idleTimeoutMs: config.idleTimeoutMs,
    maxRetryDelayMs: config.maxRetryDelayMs,
    ...(fetch ? { fetch } : {}),
  };
  const out: Registered[] = [];
  if (config.openai) {
    const { apiKey, baseURL, organization, defaultModel, api } = config.openai;
    const options = {
      id: "openai",
      apiKey,
      ...defined({ baseURL, organization }),
      ...shared,
      staticModels: KNOWN_MODELS.openai,
    };
    const provider = api === "responses" ? new OpenAIResponsesProvider(options) : new OpenAIProvider(options);
    out.push({ provider, defaultModel, staticModels: KNOWN_MODELS.openai });
  }
  if (config.anthropic) {
    const { apiKey, baseURL, defaultModel, thinkingBudgetTokens, promptCache } = config.anthropic;
    const provider = new AnthropicProvider({
      apiKey,
      promptCache,
      ...defined({ baseURL, thinkingBudgetTokens }),
      ...shared,
      models: KNOWN_MODELS.anthropic,
    });
    out.push({ provider, defaultModel, staticModels: KNOWN_MODELS.anthropic });
  }
  for (const endpoint of config.compatEndpoints) {
    const options = {
      id: endpoint.name,
      baseURL: endpoint.baseURL,
      ...defined({ apiKey: endpoint.apiKey }),
      ...shared,
    };
    const provider =
      endpoint.api === "responses"
        ? new OpenAIResponsesProvider(options)
        : // Local servers (Ollama, llama.cpp, LM Studio) implement max_tokens, not always max_completion_tokens.
          new OpenAIProvider({ ...options, maxTokensField: "max_tokens" });
    out.push({ provider, defaultModel: endpoint.defaultModel });
  }
  return out;
}

function defined<T extends Record<string, unknown>>(obj: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

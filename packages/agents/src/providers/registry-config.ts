import { z } from "zod";
import { DEFAULT_IDLE_TIMEOUT_MS } from "./idle-timeout-fetch.js";

const RESERVED_IDS = new Set(["openai", "anthropic", "scripted"]);

/** Which OpenAI API an endpoint speaks: Chat Completions, or the Responses API (reasoning kept across calls). */
export const OpenAIApi = z.enum(["chat", "responses"]);
export type OpenAIApi = z.infer<typeof OpenAIApi>;

/** One OpenAI-compatible server: `name` becomes its provider id. */
export const CompatEndpoint = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,31}$/, "names are lower-case letters, digits, '-' or '_'")
    .refine((n) => !RESERVED_IDS.has(n), { message: "this name is reserved for a built-in provider" }),
  baseURL: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).optional(),
  defaultModel: z.string().min(1).optional(),
  /** `<NAME>_API`: most compatible servers know only Chat Completions. */
  api: OpenAIApi.default("chat"),
});
export type CompatEndpoint = z.infer<typeof CompatEndpoint>;

/** Parses `OPENAI_COMPAT_ENDPOINTS` (`name=url,name=url`, blank = none) into endpoints with unique names. */
export const CompatEndpointsSchema = z
  .string()
  .transform((value, ctx) => {
    const out: { name: string; baseURL: string }[] = [];
    for (const item of value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const eq = item.indexOf("=");
      if (eq <= 0) {
        ctx.addIssue({ code: "custom", message: `"${item}" is not name=url` });
        return z.NEVER;
      }
      out.push({ name: item.slice(0, eq).trim(), baseURL: item.slice(eq + 1).trim() });
    }
    return out;
  })
  .pipe(
    z.array(CompatEndpoint).refine((list) => new Set(list.map((e) => e.name)).size === list.length, {
      message: "endpoint names must be unique",
    }),
  );

/** Everything the registry needs; usually built by the server's config from the environment. */
export const ProviderRegistryConfig = z.object({
  openai: z
    .object({
      apiKey: z.string().min(1),
      baseURL: z.url().optional(),
      organization: z.string().min(1).optional(),
      defaultModel: z.string().min(1).optional(),
      /** OPENAI_API. */
      api: OpenAIApi.default("chat"),
    })
    .optional(),
  anthropic: z
    .object({
      apiKey: z.string().min(1),
      baseURL: z.url().optional(),
      defaultModel: z.string().min(1).optional(),
      thinkingBudgetTokens: z.number().int().min(1024).optional(),
      /** ANTHROPIC_PROMPT_CACHE: `cache_control` breakpoints on the stable prefix and the conversation. */
      promptCache: z.boolean().default(true),
    })
    .optional(),
  compatEndpoints: z.array(CompatEndpoint).default([]),
  /** SDK retries before a stream starts. */
  maxRetries: z.number().int().min(0).max(10).default(2),
  /** Time to response headers per attempt. */
  timeoutMs: z.number().int().positive().default(60_000),
  /** Longest silence between stream events once the response has started; a stall fails the call. */
  idleTimeoutMs: z.number().int().positive().default(DEFAULT_IDLE_TIMEOUT_MS),
  /** Longest retry-after the SDKs may wait for; longer requests fail at once. */
  maxRetryDelayMs: z.number().int().min(0).default(20_000),
  /** Bound on a compatible server's `/models` call. */
  modelListTimeoutMs: z.number().int().positive().default(2_000),
  /** How long a `/models` answer is reused. */
  modelListTtlMs: z.number().int().min(0).default(60_000),
});
export type ProviderRegistryConfig = z.input<typeof ProviderRegistryConfig>;
export type ResolvedRegistryConfig = z.output<typeof ProviderRegistryConfig>;

/**
 * Reads the provider settings from the environment: OPENAI_API_KEY/OPENAI_BASE_URL/OPENAI_MODEL,
 * ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL/ANTHROPIC_MODEL, OPENAI_COMPAT_ENDPOINTS (a key for an
 * endpoint may be given as `<NAME>_API_KEY`, its default model as `<NAME>_MODEL`, its API as `<NAME>_API`), OPENAI_API,
 * ANTHROPIC_PROMPT_CACHE, PROVIDER_MAX_RETRIES, PROVIDER_TIMEOUT_MS,
 * PROVIDER_IDLE_TIMEOUT_MS.
 */
export function providerRegistryConfigFromEnv(
  env: Record<string, string | undefined>,
): ResolvedRegistryConfig {
  const compat = CompatEndpointsSchema.parse(env.OPENAI_COMPAT_ENDPOINTS ?? "").map((e) => {
    const prefix = e.name.toUpperCase().replace(/-/g, "_");
    return {
      ...e,
      ...definedOnly({
        apiKey: env[`${prefix}_API_KEY`],
        defaultModel: env[`${prefix}_MODEL`],
        api: env[`${prefix}_API`],
      }),
    };
  });
  return ProviderRegistryConfig.parse({
    openai: env.OPENAI_API_KEY
      ? definedOnly({
          apiKey: env.OPENAI_API_KEY,
          baseURL: env.OPENAI_BASE_URL,
          defaultModel: env.OPENAI_MODEL,
          api: env.OPENAI_API,
        })
      : undefined,
    anthropic: env.ANTHROPIC_API_KEY
      ? definedOnly({
          apiKey: env.ANTHROPIC_API_KEY,
          baseURL: env.ANTHROPIC_BASE_URL,
          defaultModel: env.ANTHROPIC_MODEL,
          promptCache:
            env.ANTHROPIC_PROMPT_CACHE === undefined ? undefined : env.ANTHROPIC_PROMPT_CACHE !== "off",
        })
      : undefined,
    compatEndpoints: compat,
    ...definedOnly({
      maxRetries: env.PROVIDER_MAX_RETRIES ? Number(env.PROVIDER_MAX_RETRIES) : undefined,
      timeoutMs: env.PROVIDER_TIMEOUT_MS ? Number(env.PROVIDER_TIMEOUT_MS) : undefined,
      idleTimeoutMs: env.PROVIDER_IDLE_TIMEOUT_MS ? Number(env.PROVIDER_IDLE_TIMEOUT_MS) : undefined,
    }),
  });
}

function definedOnly<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== "")) as Partial<T>;
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider, ProviderEvent } from "../../src/index.js";
import {
  CompatEndpointsSchema,
  createProviderRegistry,
  KNOWN_MODELS,
  providerRegistryConfigFromEnv,
} from "../../src/providers/index.js";
import { hang, json, type MockLlmServer, startMockLlmServer } from "./helpers/mock-llm-server.js";

const scripted: Provider = {
  id: "scripted",
  async *stream(): AsyncIterable<ProviderEvent> {
    yield { type: "finish", reason: "stop" };
  },
};

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

describe("OPENAI_COMPAT_ENDPOINTS", () => {
  it("parses name=url pairs", () => {
    expect(
      CompatEndpointsSchema.parse(" ollama=http://127.0.0.1:11434/v1 , vllm=http://gpu:8000/v1"),
    ).toEqual([
      { name: "ollama", baseURL: "http://127.0.0.1:11434/v1", api: "chat" },
      { name: "vllm", baseURL: "http://gpu:8000/v1", api: "chat" },
    ]);
    expect(CompatEndpointsSchema.parse("")).toEqual([]);
  });

  it.each([
    ["ollama", /name=url/],
    ["ollama=not a url", /URL/i],
    ["openai=http://x/v1", /reserved/],
    ["Big=http://x/v1", /lower-case/],
    ["a=http://x/v1,a=http://y/v1", /unique/],
    ["a=ftp://x/v1", /URL/i],
  ])("rejects %s", (value, message) => {
    const result = CompatEndpointsSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toMatch(message);
  });

  it("reads the environment, with an optional <NAME>_API_KEY, <NAME>_MODEL and <NAME>_API per endpoint", () => {
    const config = providerRegistryConfigFromEnv({
      OPENAI_API_KEY: "sk-1",
      OPENAI_COMPAT_ENDPOINTS: "openrouter=https://openrouter.ai/api/v1,ollama=http://127.0.0.1:11434/v1",
      OPENROUTER_API_KEY: "or-key",
      OLLAMA_MODEL: "llama3.2",
      OPENROUTER_API: "responses",
      PROVIDER_MAX_RETRIES: "1",
    });
    expect(config.openai).toEqual({ apiKey: "sk-1", api: "chat" });
    expect(config.anthropic).toBeUndefined();
    expect(config.compatEndpoints).toEqual([
      { name: "openrouter", baseURL: "https://openrouter.ai/api/v1", apiKey: "or-key", api: "responses" },
      { name: "ollama", baseURL: "http://127.0.0.1:11434/v1", defaultModel: "llama3.2", api: "chat" },
    ]);
    expect(config.maxRetries).toBe(1);
    const responses = providerRegistryConfigFromEnv({
      OPENAI_API_KEY: "sk-1",
      OPENAI_API: "responses",
      ANTHROPIC_API_KEY: "ak",
      ANTHROPIC_PROMPT_CACHE: "off",
    });
    expect(responses.openai?.api).toBe("responses");
    expect(responses.anthropic?.promptCache).toBe(false);
    expect(providerRegistryConfigFromEnv({ ANTHROPIC_API_KEY: "ak" }).anthropic?.promptCache).toBe(true);
    expect(() =>
      providerRegistryConfigFromEnv({ OPENAI_API_KEY: "sk-1", OPENAI_API: "completions" }),
    ).toThrow();
  });
});

describe("provider registry", () => {
  it("has openai/anthropic only when keys are set, each compatible endpoint, and injected extras", () => {
    const registry = createProviderRegistry(
      { anthropic: { apiKey: "k" }, compatEndpoints: [{ name: "ollama", baseURL: "http://127.0.0.1:1/v1" }] },
      { extraProviders: [scripted] },
    );
    expect(registry.get("openai")).toBeUndefined();
    expect(registry.get("anthropic")?.id).toBe("anthropic");
    expect(registry.get("ollama")?.id).toBe("ollama");
    expect(registry.get("scripted")).toBe(scripted);
    expect(createProviderRegistry({}).get("scripted")).toBeUndefined();
  });

  it("lists static models for openai/anthropic and a compatible server's /models, cached", async () => {
    server.reply(
      json(200, { object: "list", data: [{ id: "qwen2.5:7b", object: "model" }, { id: "llama3.2" }] }),
    );
    const before = server.requests.length;
    const registry = createProviderRegistry(
      {
        openai: { apiKey: "k", defaultModel: "gpt-4.1-mini" },
        compatEndpoints: [{ name: "ollama", baseURL: `${server.url}/v1`, defaultModel: "qwen2.5:7b" }],
      },
      { extraProviders: [scripted], extraDefaultModels: { scripted: "script" } },
    );
    const expected = [
      { id: "openai", models: [...KNOWN_MODELS.openai], default_model: "gpt-4.1-mini" },
      { id: "ollama", models: ["qwen2.5:7b", "llama3.2"], default_model: "qwen2.5:7b" },
      { id: "scripted", models: [], default_model: "script" },
    ];
    expect(await registry.list()).toEqual(expected);
    expect(await registry.list()).toEqual(expected); // second listing from cache
    expect(server.requests.slice(before).map((r) => r.path)).toEqual(["/v1/models"]);
  });

  it("a compatible server that does not answer /models lists no models, within the short timeout", async () => {
    server.reply(hang());
    const registry = createProviderRegistry({
      compatEndpoints: [{ name: "slow", baseURL: `${server.url}/v1` }],
      modelListTimeoutMs: 100,
    });
    const started = Date.now();
    expect(await registry.list()).toEqual([{ id: "slow", models: [] }]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  describe("resolve", () => {
    const registry = createProviderRegistry({
      openai: { apiKey: "k", defaultModel: "gpt-4.1-mini" },
      compatEndpoints: [{ name: "ollama", baseURL: "http://127.0.0.1:1/v1" }],
    });
    const defaults = { provider: "openai", model: "gpt-4.1" };

    it("uses the server defaults when nothing is asked", () => {
      const r = registry.resolve({}, defaults);
      expect(r.ok && { id: r.provider.id, model: r.model }).toEqual({ id: "openai", model: "gpt-4.1" });
    });

    it("passes any model name through (new models need no release)", () => {
      const r = registry.resolve({ provider: "openai", model: "gpt-9-preview" }, defaults);
      expect(r.ok && r.model).toBe("gpt-9-preview");
    });

    it("falls back to the provider's own default model, not the default provider's", () => {
      const r = registry.resolve({}, { provider: "openai" });
      expect(r.ok && r.model).toBe("gpt-4.1-mini");
      expect(registry.resolve({ provider: "ollama" }, defaults)).toEqual({
        ok: false,
        message: 'no model given and provider "ollama" has no default model',
      });
    });

    it("explains an unconfigured or unknown provider", () => {
      expect(registry.resolve({ provider: "anthropic", model: "m" }, defaults)).toEqual({
        ok: false,
        message:
          'provider "anthropic" is not configured (set ANTHROPIC_API_KEY); configured providers: openai, ollama',
      });
      expect(registry.resolve({ provider: "nope", model: "m" }, defaults)).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^unknown provider "nope"/),
      });
      // Names of Object.prototype members are unknown providers too, not hints read off the prototype.
      for (const name of ["constructor", "__proto__", "toString"]) {
        expect(registry.resolve({ provider: name, model: "m" }, defaults)).toMatchObject({
          ok: false,
          message: expect.stringMatching(new RegExp(`^unknown provider "${name}"`)),
        });
      }
      expect(registry.resolve({ model: "m" }, {})).toMatchObject({ ok: false });
    });
  });
});
